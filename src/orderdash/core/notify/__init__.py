"""Word to an owner who is away: notification rules (`rules.py`), the messages (`messages.py`),
the sender's thread (`sender.py`), one send through Apprise (`delivery.py`), many orders needing
attention at once as one message (`digest.py`) and what turns the app's events into messages
(`events.py`). The contract: docs/notify.md. Apprise (the `notify` extra) is loaded only by the
sender, and only when a rule exists.
"""
