"""A device's preferred work-group multiple, probed once per device and driver and kept on
disk: a later process describes its devices without building anything."""

import explorer.engine.launch.devices as devices


def test_a_second_description_reads_the_multiple_from_disk(monkeypatch, tmp_path):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    probed = []
    probe = devices.probe_multiple

    def counting(cl, device):
        probed.append(device.name)
        return probe(cl, device)

    monkeypatch.setattr(devices, "probe_multiple", counting)
    first = devices._list_devices()
    assert probed == [d.name for d in first]  # every device probed once
    probed.clear()
    again = devices._list_devices()  # as a new process describes them
    assert probed == []
    assert again == first
    assert {d.preferred_multiple for d in first} != {0}


def test_a_damaged_file_is_probed_again(monkeypatch, tmp_path):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    first = devices._list_devices()
    for kept in (tmp_path / "devices").iterdir():
        kept.write_bytes(b"not a pickle")
    assert devices._list_devices() == first
