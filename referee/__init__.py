"""The rules engine, the table referee and the evening: everything that decides."""
