"""``python -m tsfile bench dataset --small`` runs end to end (its own equality checks pass and
it prints its tables); speed is not checked here."""

from tsfile.__main__ import main


def test_dataset_section_small(capsys):
    assert main(["bench", "dataset", "--small"]) == 0
    out = capsys.readouterr().out
    assert "## read_table over 4 files x 2,000 rows" in out
    assert "2 threads vs 1" in out and "1 thread vs one file" in out
    assert "warm / cold" in out
    assert "dask" in out
