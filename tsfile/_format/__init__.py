"""The TsFile format layer shared by the reader and the writer: the format constants
(constants.py; codes.pxd for Cython), byte encoding and bounds-checked parsing (bytes.py), device
IDs (device.py), statistics (statistics.py), and the parsing of the metadata area (metadata.py,
index.py; every error a CorruptDataError that names the file offset)."""
