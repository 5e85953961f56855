"""Every code kb can report, with its name and the module that owns it: the one table to read
when picking a free code, held to the registry of rules by a test. It sits in the ground floor
because the layers below the rules emit codes too (reading YAML, the schema, the loader): they
take their codes from here, as the rules do, and none takes another layer's.

Families: KB0xx reading YAML, KB1xx schema, KB2xx cross-references and sources, KB3xx hardware
catalog, KB4xx formulas and roofline, KB5xx what pages show, KB6xx models and the recipes that
compose them, KB7xx published measurements.
"""

#: The codes the layers below the rules emit while reading and evaluating.
INTERNAL = "KB000"
SYNTAX = "KB001"
DUPLICATE_KEY = "KB002"
ALIAS = "KB003"
TAG = "KB004"
YAML11_BOOLEAN = "KB005"
ENCODING = "KB006"
EMPTY = "KB007"
NOT_A_MAPPING = "KB008"
TOO_LARGE = "KB009"
TOO_DEEP = "KB010"
NOT_A_FILE = "KB011"
BAD_NUMBER = "KB012"
CONTROL_CHARACTER = "KB013"
PORTABLE_NUMBER = "KB014"
ENTRY_PLACEHOLDER = "KB015"
DEVICE_PLACEHOLDER = "KB017"
NOT_READ = "KB019"
COMMITTED_OUTPUT = "KB021"
MISSING_KEY = "KB101"
UNKNOWN_KEY = "KB102"
NOT_ALLOWED = "KB103"
WRONG_TYPE = "KB104"
BAD_FORM = "KB105"
EARLIER_VERSION = "KB106"
BUILT_IN_WORD = "KB107"
DUPLICATE_ID = "KB202"
UNKNOWN_DEVICE = "KB204"
BAD_QUANTITY = "KB301"
FORMULA = "KB401"

CODES = """
KB000  internal-error               check
KB001  yaml-syntax                  source
KB002  duplicate-key                source
KB003  anchor-or-alias              source
KB004  tag                          source
KB005  yaml11-boolean               source
KB006  encoding                     source
KB007  empty-file                   source
KB008  top-level-not-mapping        source
KB009  too-large                    source
KB010  too-deep                     source
KB011  not-a-file                   source
KB012  bad-number                   source
KB013  control-character            source
KB014  portable-number              source
KB015  entry-placeholder            placeholders
KB016  entry-schema-line            schema_line
KB017  device-placeholder           placeholders
KB018  device-schema-line           schema_line
KB019  not-read                     kb
KB020  published-schema-current     schema_line
KB021  build-output-committed       outputs
KB022  model-schema-line            schema_line
KB101  missing-key                  schemas
KB102  unknown-key                  schemas
KB103  not-allowed                  schemas
KB104  wrong-type                   schemas
KB105  bad-form                     schemas
KB106  earlier-schema-version       schemas
KB107  built-in-word                config
KB201  id-matches-path              identity
KB202  unique-id                    identity
KB203  device-id-matches-file       identity
KB204  known-device                 cross_references
KB205  known-parameter              cross_references
KB206  magnitude-matches-catalog    cross_references
KB211  known-namespace              namespaces
KB212  known-related                related
KB213  related-not-self             related
KB214  alias-not-taken              identity
KB215  page-not-taken               identity
KB220  year-matches-arxiv           references
KB221  claim-names-a-reference      claims
KB222  claim-names-a-check          claims
KB223  entry-cites-a-source         references
KB301  bad-quantity                 model
KB310  known-source                 catalog
KB311  source-used                  catalog
KB312  narrower-dtype-not-slower    catalog
KB313  plausible-ridge-point        catalog
KB314  plausible-figure             catalog
KB315  looks-sparse                 catalog
KB401  formula                      formulas
KB402  symbol-has-typical           formulas
KB403  values-in-range              formulas
KB404  known-override               formulas
KB405  evaluates                    roofline
KB406  bound-by-holds               roofline
KB407  check-holds                  roofline
KB408  symbolic-budget              formulas
KB409  bounded-symbol-read          formulas
KB411  derived-formula              derived
KB412  derived-order                derived
KB413  derived-name-unique          derived
KB414  reserved-name                derived
KB415  known-derived                derived
KB416  evaluation-budget            formulas
KB417  shared-quantity              formulas
KB501  no-raw-html                  markup
KB502  no-images                    markup
KB503  link-scheme                  markup
KB504  text-budget                  markup
KB601  model-id-matches-file        models
KB602  model-fields                 models
KB603  parameter-count-agrees       models
KB604  model-sources                models
KB605  model-deployments            models
KB606  recipe-cards                 models
KB607  recipe-in-range              models
KB608  model-evaluates              models
KB609  draft-models                 models
KB701  measurement-id-unique        measurements
KB702  measurement-cites-a-source   measurements
KB703  measurement-workload         measurements
KB704  measured-not-below-bound     measurements
KB705  fraction-within-measurements measurements
"""


def code_table() -> dict[str, tuple[str, str]]:
    """code -> (name, module)."""
    rows = (line.split() for line in CODES.strip().splitlines())
    return {code: (name, module) for code, name, module in rows}
