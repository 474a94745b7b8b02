"""A game record (``tricktable.v1.GameRecord``) as JSON, byte for byte the same for the same
game: the text ``tricktable replay`` exports and the server's own tools write.

Protobuf's JSON mapping prints a message's fields in their declared order, but a ``map``'s
entries (a record's options, say) in whatever order the map holds them, which differs between
two exports of one game. Here every map's keys are sorted, at any depth; the rest is protobuf's
mapping unchanged (field names as declared, zeros printed, one space of indent).
"""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message


def message_to_json(msg: Message) -> str:
    """``msg`` in protobuf's JSON mapping, with every map's keys in sorted order."""
    # Zeros are printed too (seat 0, version 0): a record is read by people as well as programs.
    data = json_format.MessageToDict(
        msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    return json.dumps(_sorted_maps(msg.DESCRIPTOR, data), indent=1)


def record_to_json(record: Message) -> str:
    """A game record's JSON: the same bytes for the same game, whoever exports it."""
    return message_to_json(record)


def _sorted_maps(descriptor: Any, data: Any) -> Any:
    if not isinstance(data, dict) or descriptor.full_name.startswith("google.protobuf."):
        return data  # a well-known type's own JSON form (a Struct, a Timestamp...)
    for field in descriptor.fields:
        if field.name not in data or field.message_type is None:
            continue
        value = data[field.name]
        if field.message_type.GetOptions().map_entry:
            inner = field.message_type.fields_by_name["value"].message_type
            data[field.name] = {
                k: (_sorted_maps(inner, value[k]) if inner is not None else value[k])
                for k in sorted(value)
            }
        elif _repeated(field):
            data[field.name] = [_sorted_maps(field.message_type, v) for v in value]
        else:
            data[field.name] = _sorted_maps(field.message_type, value)
    return data


def _repeated(field: Any) -> bool:
    flag = getattr(field, "is_repeated", None)  # protobuf 6+; before it, the field's label
    return bool(flag) if flag is not None else getattr(field, "label", 0) == _LABEL_REPEATED


_LABEL_REPEATED = 3
