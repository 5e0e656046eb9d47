# cython: language_level=3
"""The format codes of codes.pxd as Python IntEnums (DataTypeCode, EncodingCode, CompressorCode,
ColumnCategoryCode, MarkerCode, IndexNodeTypeCode, FormatVersionCode), made by Cython from the
cpdef enums of the .pxd. They exist so tests/test_format_layer.py can check that the .pxd, which
Cython modules cimport, holds the same codes as tsfile.types and tsfile._format.constants; code
uses those Python modules, not this one."""
