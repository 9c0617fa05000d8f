"""The use cases, the top floor of core: what a person does with orderdash (close a day, export
a period, see what needs a human, ...), each once, for the commands and the dashboard alike.
Each takes small frozen options built once from the settings and returns data; the CLI and the
TUI call these and only render. The books' logic (`core/books`) reaches them through here."""
