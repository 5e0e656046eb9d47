"""The official package's module path ``tsfile.tsfile_table_writer``: the table writer and the
DataFrame helpers that code written for the official package imports from there."""

from tsfile.utils import infer_object_column_type, validate_dataframe_for_tsfile
from tsfile.writer import TsFileTableWriter

__all__ = ["TsFileTableWriter", "infer_object_column_type", "validate_dataframe_for_tsfile"]
