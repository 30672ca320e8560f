# The last of the start-up code, after the driver and the symbolic tools: asks the host to mark every object
# alive now immortal (crates/beaker-python/src/immortal.rs says why), then moves them out of the collector's
# reach. It writes, last on stdout, b"\0beaker-immortalize\0", the count (u32, little-endian) and the objects'
# addresses (`id()`, u32 each; an address may repeat).
#
# The host writes their reference counts after this code has ended, so each listed object must still be alive
# then (a freed object's first word belongs to the allocator): `_BEAKER_KEPT` holds every object the collector
# tracks, and each other listed object is one of theirs, which nothing changes before the host's edit.

import array

gc.unfreeze()
gc.collect()


def _beaker_alive():
    objects = gc.get_objects()
    ids = array.array("I", map(id, objects))
    for o in objects:
        ids.extend(map(id, gc.get_referents(o)))
    return objects, ids


_BEAKER_KEPT, _beaker_ids = _beaker_alive()
_write_all(1, b"\0beaker-immortalize\0" + _len(_beaker_ids).to_bytes(4, "little") + _beaker_ids.tobytes())
del _beaker_ids
gc.freeze()
