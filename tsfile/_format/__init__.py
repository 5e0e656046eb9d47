"""Parsing of the TsFile byte structures (format notes sections 1-4, 6, 9, 10): bounds-checked,
every error a CorruptDataError that names the file offset."""
