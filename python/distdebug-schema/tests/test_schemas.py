from importlib import resources

import distdebug_schema
from distdebug_schema import KINDS, schema_of


def test_the_installed_schemas_are_the_generated_ones(repository):
    generated = repository / "packages" / "schema" / "json-schema"
    names = sorted(path.name for path in generated.glob("*.schema.json"))
    installed = resources.files(distdebug_schema).joinpath("schemas")
    assert sorted(f"{kind}.schema.json" for kind in KINDS) == names
    for name in names:
        assert installed.joinpath(name).read_bytes() == (generated / name).read_bytes(), name


def test_every_kind_is_draft_2020_12_and_closed_to_unknown_keys():
    assert "diagnosis" in KINDS and "trajectory" in KINDS and "config" in KINDS
    for kind in KINDS:
        schema = schema_of(kind)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["additionalProperties"] is False, kind


def test_an_unknown_kind_is_named():
    try:
        schema_of("diagnoses")
    except KeyError as error:
        assert "unknown DistDebug file kind 'diagnoses'" in str(error)
    else:
        raise AssertionError("schema_of accepted an unknown kind")
