"""Review of the official-API layer (config, exceptions, result sets): defects found by attacking
it, each checked against the official 2.5 wheel where that one behaves sanely."""

import pytest
from compat.both import run_official, run_ours

import tsfile
from tsfile.errors import TypeMismatchError

# The integer keys and the largest value the official package stores for each (its C++ fields
# are uint32, or int32 for these two).
INT_KEY_MAX = {
    "tsblock_max_memory_": 2**32 - 1,
    "page_writer_max_point_num_": 2**32 - 1,
    "page_writer_max_memory_bytes_": 2**32 - 1,
    "max_degree_of_index_node_": 2**32 - 1,
    "chunk_group_size_threshold_": 2**31 - 1,
    "record_count_for_next_mem_check_": 2**31 - 1,
}


@pytest.fixture
def restored_config():
    before = tsfile.get_tsfile_config()
    yield
    tsfile.set_tsfile_config({k: before[k] for k in INT_KEY_MAX})


@pytest.mark.parametrize("key", sorted(INT_KEY_MAX))
def test_config_int_beyond_the_official_range_is_refused(key, restored_config):
    # before: any int was stored (2**40 points per page, a 2**64 threshold), where the official
    # package refuses (TypeError / OverflowError) and keeps the old value
    top = INT_KEY_MAX[key]
    tsfile.set_tsfile_config({key: top})
    assert tsfile.get_tsfile_config()[key] == top
    before = tsfile.get_tsfile_config()
    for value in (top + 1, 2**64):
        with pytest.raises(TypeMismatchError, match=f"{key} must be <= {top}"):
            tsfile.set_tsfile_config({key: value})
        assert tsfile.get_tsfile_config() == before


def test_official_package_refuses_the_same_config_ints():
    out = run_official(
        f"""
from tsfile import get_tsfile_config, set_tsfile_config
for key, top in {INT_KEY_MAX!r}.items():
    before = get_tsfile_config()[key]
    out[key] = [error_of(set_tsfile_config, {{key: top}}) is None,
                error_of(set_tsfile_config, {{key: top + 1}}) is not None]
    set_tsfile_config({{key: before}}) if before else None
"""
    )
    assert out == {key: [True, True] for key in INT_KEY_MAX}


def test_config_round_trips_after_a_writer_with_a_huge_memory_threshold(tmp_path, restored_config):
    # the writer reports its memory_threshold as chunk_group_size_threshold_ (as official): one
    # beyond the key's range is reported capped, so the configuration can be set back as read
    tsfile.TsFileWriter(tmp_path / "a.tsfile", 2**33).close()
    config = tsfile.get_tsfile_config()
    assert config["chunk_group_size_threshold_"] == 2**31 - 1
    tsfile.set_tsfile_config(config)
    assert tsfile.get_tsfile_config() == config


FIELD_ERRORS = """
from tsfile import Field, TSDataType
import tsfile
out["exported"] = [hasattr(tsfile, n) for n in ("NoneDataTypeException", "DateTimeParseException")]
untyped = Field("x", 5)
for name in ("get_bool_value", "get_int_value", "get_long_value", "get_timestamp_value",
             "get_float_value", "get_double_value", "get_date_value", "get_string_value",
             "get_bytes_value"):
    out[name] = error_of(getattr(untyped, name))[0]
out["str"] = error_of(str, untyped)[0]
out["date"] = error_of(Field("d", 20240230, TSDataType.DATE).get_date_value)[0]
out["date_object"] = error_of(Field("d", 20240230, TSDataType.DATE).get_object_value,
                              TSDataType.DATE)[0]
"""


def test_field_errors_are_the_official_classes():
    # before: tsfile had no NoneDataTypeException / DateTimeParseException (an import of either
    # failed) and Field raised a bare TypeError / ValueError
    ours = run_ours(FIELD_ERRORS)
    assert ours["exported"] == [True, True]
    assert ours["date"] == ours["date_object"] == "DateTimeParseException"
    assert {v for k, v in ours.items() if k.startswith(("get_", "str"))} == {
        "NoneDataTypeException"
    }
    assert ours == run_official(FIELD_ERRORS)


def test_field_errors_stay_the_standard_classes_and_ours():
    untyped = tsfile.Field("x", 5)
    with pytest.raises(TypeError, match="field 'x' has no data type") as info:
        untyped.get_int_value()
    assert isinstance(info.value, tsfile.TsFileError)
    with pytest.raises(ValueError, match="20240230 is not a date") as info:
        tsfile.Field("d", 20240230, tsfile.TSDataType.DATE).get_date_value()
    assert isinstance(info.value, tsfile.DateTimeParseException)
