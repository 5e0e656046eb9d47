# The TsFile format codes for Cython (format notes 1.4, 3, 5, 9): data types, encodings,
# compressions, column categories, the marker bytes and the index node types.
#
# The Python side of the same codes is tsfile.types (TSDataType, TSEncoding, Compressor,
# ColumnCategory) and tsfile._format.constants (markers, node types, version). Both are declared
# by hand, once each; tests/test_format_layer.py compares every member of these enums (visible
# from Python as the classes of tsfile._format.codes) with them, so changing one side alone fails.
#
# cpdef enums: a module that cimports a name gets a C constant (no import at run time); the
# module tsfile._format.codes exposes each enum as a Python IntEnum for that comparison.

cpdef enum DataTypeCode:
    T_BOOLEAN = 0
    T_INT32 = 1
    T_INT64 = 2
    T_FLOAT = 3
    T_DOUBLE = 4
    T_TEXT = 5
    T_VECTOR = 6  # only the time column of an aligned device
    T_UNKNOWN = 7  # never written
    T_TIMESTAMP = 8
    T_DATE = 9
    T_BLOB = 10
    T_STRING = 11

cpdef enum EncodingCode:
    E_PLAIN = 0
    E_DICTIONARY = 1
    E_RLE = 2
    E_DIFF = 3
    E_TS_2DIFF = 4
    E_BITMAP = 5
    E_GORILLA_V1 = 6
    E_REGULAR = 7
    E_GORILLA = 8
    E_ZIGZAG = 9
    E_FREQ = 10
    E_CHIMP = 11
    E_SPRINTZ = 12
    E_RLBE = 13
    E_CAMEL = 14
    E_ALP = 15

cpdef enum CompressorCode:
    C_UNCOMPRESSED = 0
    C_SNAPPY = 1
    C_GZIP = 2
    C_LZO = 3
    C_SDT = 4
    C_PAA = 5
    C_PLA = 6
    C_LZ4 = 7
    C_ZSTD = 8
    C_LZMA2 = 9

cpdef enum ColumnCategoryCode:
    CAT_TAG = 0
    CAT_FIELD = 1
    CAT_ATTRIBUTE = 2
    CAT_TIME = 3

cpdef enum MarkerCode:
    # the byte before each structure of the data area (format notes 5)
    MARKER_CHUNK_GROUP_HEADER = 0
    MARKER_CHUNK_HEADER = 1
    MARKER_SEPARATOR = 2
    MARKER_OPERATION_INDEX_RANGE = 4
    MARKER_ONLY_ONE_PAGE_CHUNK_HEADER = 5
    # ORed into a chunk header marker: the time / a value chunk of an aligned device
    MARKER_TIME_COLUMN_MASK = 0x80
    MARKER_VALUE_COLUMN_MASK = 0x40

cpdef enum IndexNodeTypeCode:
    NODE_INTERNAL_DEVICE = 0
    NODE_LEAF_DEVICE = 1
    NODE_INTERNAL_MEASUREMENT = 2
    NODE_LEAF_MEASUREMENT = 3

cpdef enum FormatVersionCode:
    FORMAT_VERSION = 4  # the byte after the magic "TsFile"
