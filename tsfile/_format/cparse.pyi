"""Type stubs of tsfile/_format/cparse.pyx."""

from tsfile._format.metadata import TimeseriesMeta
from tsfile._format.statistics import Statistics

def read_series_range(buf, start: int, end: int, path: str) -> list[TimeseriesMeta]: ...
def read_series_at(buf, start: int, end: int, path: str) -> tuple[TimeseriesMeta, int]: ...
def read_statistics_at(
    buf, start: int, end: int, data_type: int, path: str
) -> tuple[Statistics, int]: ...
