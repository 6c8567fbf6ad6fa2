"""The SQLite database: connection and pragmas (`connection`), and the schema as ordered migrations (`migrations`)."""
