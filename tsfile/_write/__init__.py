"""Serialization side of the writer: statistics, pages and chunks, the metadata index, the bloom
filter and TsFileMetadata (format notes sections 4-10 and the write recipe in section 12)."""
