"""The customer-facing side: the words (catalogue), what the customer sees (face), and the
local channel a dashboard publishes it on for `orderdash display`."""
