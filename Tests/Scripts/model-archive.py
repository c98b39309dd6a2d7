#!/usr/bin/env python3
"""A reader of Core Data's compiled models independent of Strata, on Python's plistlib, for tests.

  model-archive.py summary FILE [--deflated]

FILE is a .mom (an NSKeyedArchiver archive of NSManagedObjectModel), or with --deflated a raw
DEFLATE stream of one (a SQLite store's Z_MODELCACHE content). Prints the model as JSON: each
entity's superentity, abstractness, renaming identifier, version hash modifier, uniqueness
constraints, and each property (inherited ones included) with its class, flags (from _P when
present, else the Booleans), attribute type and value class, relationship counts, delete rule,
destination and inverse.
"""
import json, plistlib, sys, zlib


def summary(data):
    archive = plistlib.loads(data)
    objects = archive["$objects"]

    def obj(ref):
        if isinstance(ref, plistlib.UID):
            value = objects[ref.data]
            if value == "$null":
                return None
            # Strings may be archived as NSString/NSMutableString objects.
            if isinstance(value, dict) and "NS.string" in value:
                return obj(value["NS.string"])
            return value
        return ref

    def cls(o):
        return objects[o["$class"].data]["$classname"]

    def items(ref):
        o = obj(ref)
        if o is None:
            return []
        if "NS.keys" in o:
            return list(zip([obj(k) for k in o["NS.keys"]], [obj(v) for v in o["NS.objects"]]))
        if "NS.objects" in o:
            return [(None, obj(v)) for v in o["NS.objects"]]
        values = obj(o.get("values"))
        if isinstance(values, dict):
            values = [obj(v) for v in values.get("NS.objects", [])]
        return [(None, obj(v)) for v in (values or [])]

    def name(o):
        return obj(o.get("NSEntityName")) if o else None

    root = obj(archive["$top"]["root"])
    model = {}
    for _, entity in items(root["NSEntities"]):
        properties = {}
        for _, p in items(entity.get("NSProperties")):
            kind = cls(p)
            if kind == "_NSPropertyDescriptionProxy":
                continue
            bits = p.get("_P")
            flags = {
                "optional": bool(bits & 0x2) if bits is not None else p.get("NSIsOptional", False),
                "transient": bool(bits & 0x8) if bits is not None else p.get("NSIsTransient", False),
            }
            entry = {"class": kind, "renaming": obj(p.get("NSRenamingIdentifier")), "modifier": obj(p.get("NSVersionHashModifier")), **flags}
            if "NSAttributeType" in p:
                entry.update(type=p["NSAttributeType"], valueClass=obj(p.get("NSAttributeValueClassName")), storage=p.get("NSFlagsKey", 0))
            if kind == "NSRelationshipDescription":
                entry.update(
                    ordered=bool(bits & 0x400) if bits is not None else p.get("NSIsOrdered", False),
                    minCount=p.get("NSMinCount"), maxCount=p.get("NSMaxCount"), deleteRule=p.get("NSDeleteRule"),
                    destination=obj(p.get("_NSDestinationEntityName")) or name(obj(p.get("NSDestinationEntity"))),
                    inverse=obj(p.get("_NSInverseRelationshipName")) or (obj(obj(p.get("NSInverseRelationship")).get("NSPropertyName")) if obj(p.get("NSInverseRelationship")) else None))
            properties[obj(p["NSPropertyName"])] = entry
        unique = []
        for _, tuple_ in items(entity.get("NSUniqueTuples")):
            unique.append([m if isinstance(m, str) else obj(m.get("NSPropertyName")) for _, m in items(tuple_)])
        model[obj(entity["NSEntityName"])] = {
            "superentity": name(obj(entity.get("NSSuperentity"))), "abstract": bool(entity.get("NSIsAbstract", False)),
            "renaming": obj(entity.get("NSRenamingIdentifier")), "modifier": obj(entity.get("NSVersionHashModifier")),
            "unique": unique, "properties": properties,
        }
    # Each entity with its inherited properties too: momc archives an entity's own properties,
    # a model built in code copies the inherited ones into each subentity; both mean the same.
    for entity in model.values():
        parent, seen = entity["superentity"], set()
        while parent in model and parent not in seen:
            seen.add(parent)
            for key, value in model[parent]["properties"].items():
                entity["properties"].setdefault(key, value)
            parent = model[parent]["superentity"]
    return model


if __name__ == "__main__":
    data = open(sys.argv[2], "rb").read()
    if "--deflated" in sys.argv:
        data = zlib.decompress(data, -15)
    print(json.dumps(summary(data), sort_keys=True))
