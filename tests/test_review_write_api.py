"""Review of the official-API layer (config, exceptions, result sets): defects found by attacking
it, each checked against the official 2.5 wheel where that one behaves sanely."""

import pytest
from compat.both import run_official

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
