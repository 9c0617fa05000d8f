"""The close of day and the exports: what the shop took in a period, from the service's own
data joined with the ledger (`core/ledger`). Pure and Textual-free: `period` turns a day or a
span into aware datetimes, `gather` reads the orders within the budgets, `report` builds the
frozen close report, `export` the rows of an export. The JSON keys and the columns are
documented in docs/books.md."""
