"""Model files and the recipes that compose them: a model's id is its file name, its config
gives every field its architecture kind reads, its published parameter count agrees with the
count the config implies, its sources are named, its deployments are consistent, every card
its recipe binds exists with the symbols bound, every bound value lies in its card's range
over the deployments the model is offered at, and it evaluates."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping
from pathlib import PurePosixPath

from ..composition.deployment import DEGREES, NUMERIC, PARAMETERS, SPECULATIVE, resolve
from ..composition.estimate import ModelError, estimate, field_values, kind_of
from ..composition.kinds import Kind
from ..core.diagnostics import Diagnostic
from ..core.errors import BadRequest
from ..core.numbers import exact_number
from ..evaluation.formulas import EvaluationError
from ..maths import intervals
from ..maths.formula import Bounds, FormulaError
from ..records.model import Model
from . import Context, Scope, rule

MODEL_ID = "KB601"
MODEL_FIELDS = "KB602"
PARAMETER_COUNT = "KB603"
MODEL_SOURCES = "KB604"
MODEL_DEPLOYMENTS = "KB605"
RECIPE_CARDS = "KB606"
RECIPE_RANGES = "KB607"
MODEL_EVALUATES = "KB608"
DRAFT_MODELS = "KB609"

#: At most this many (row, symbol, combination of offered degrees) bounds are worked out for
#: one model: each is one interval evaluation, so a model with eight values of each degree
#: (512 combinations) and a long recipe stays within a second or is refused (KB607).
RANGE_CHECK_BUDGET = 200_000

#: How far a bound may pass a card's range for rounding alone: intervals are widened by an
#: ulp at every step, so a bound equal to the range's end can come out a hair beyond it.
_ROUNDING = 1e-9


@rule(MODEL_ID, "model-id-matches-file", Scope.MODEL)
def model_id_matches_file(model: Model, context: Context) -> Iterable[Diagnostic]:
    """A model's id is its file name in models/, without .yaml.

    ## What it checks
    That `id` equals the file name of `models/<id>.yaml`.
    An editor cannot show this: a JSON Schema does not see the file's name.
    ## Why it matters
    The id is how `kb estimate`, the site's address of the model page and other models'
    `drafts` name the model; a file whose name says another id would be found under neither.
    ## How to fix
    Rename the file to `models/<id>.yaml`, or set `id` to the file's name.
    ## Fails
    ```yaml
    id: another-model
    ```
    ## Passes
    ```yaml
    id: fixture-model
    ```
    """
    path = PurePosixPath(model.path)
    if path.parent.name == "models" and path.stem != model.id:
        yield model.at("id").error(
            MODEL_ID,
            f"model id '{model.id}' is not its file name '{path.stem}'",
            f"set id: {path.stem}, or rename the file to models/{model.id}.yaml",
        )


@rule(MODEL_FIELDS, "model-fields", Scope.MODEL)
def model_fields(model: Model, context: Context) -> Iterable[Diagnostic]:
    """The config gives every field the model's architecture kind reads, as a number.

    ## What it checks
    That for each field of the kind (`layers`, `kv_heads`, `experts`, ...) the config holds one
    of the names it may come from (`num_hidden_layers`; `num_local_experts`, `num_experts` or
    `n_routed_experts`) as a number or a boolean, or the kind gives a formula for it
    (`head_dim: hidden / heads`), and that every field is a positive, finite number.
    An editor cannot show this: the fields a model needs come from its architecture kind, a file of
    kb's own.
    ## Why it matters
    The recipe reads the fields; a field the config does not give could only be guessed.
    ## How to fix
    Copy the value from the publisher's config.json under its published name.
    ## Fails
    ```yaml
    config:
      num_hidden_layers: null
    ```
    ## Passes
    ```yaml
    config:
      num_hidden_layers: 32
    ```
    """
    kind = _kind(model)
    if kind is None:
        return
    try:
        values = field_values(model, kind)
    except (ModelError, FormulaError) as exc:
        yield model.at("config").error(MODEL_FIELDS, str(exc.message), key=True)
        return
    for item in kind.fields:
        value = values[item.name]
        if item.name != "tied" and not (math.isfinite(value) and value > 0):
            shown = next((n for n in item.names if n in model.config), None)
            yield model.at(*(("config", shown) if shown else ("config",))).error(
                MODEL_FIELDS,
                f"{item.name} is {exact_number(value)}: not a positive, finite number",
                key=shown is None,
            )


@rule(PARAMETER_COUNT, "parameter-count-agrees", Scope.MODEL)
def parameter_count_agrees(model: Model, context: Context) -> Iterable[Diagnostic]:
    """The published parameter count agrees with the count the config implies.

    ## What it checks
    That the count the architecture kind works out from the config (its `parameters.total`)
    lies within `parameters.tolerance` of `parameters.value`, as a fraction of the published
    count.
    An editor cannot show this: a JSON Schema cannot parse or evaluate a formula.
    ## Why it matters
    A config copied wrong (a layer count, an MLP width) changes every number the model's
    estimate gives; the publisher's count is an independent check of the copy.
    ## How to fix
    Compare the config with the publisher's config.json; where the count differs for a
    known reason (weights the recipe does not count), widen the tolerance and say why in
    `parameters.note`.
    ## Fails
    ```yaml
    parameters: {value: 7.0e+9}
    ```
    ## Passes
    ```yaml
    parameters: {value: 8.03e+9}
    ```
    """
    kind = _kind(model)
    if kind is None:
        return
    try:
        implied = implied_parameters(model, kind)
    except ModelError:
        return  # the fields rule says why
    except FormulaError as exc:
        yield model.at("parameters", "value").error(
            PARAMETER_COUNT, f"the count the config implies cannot be worked out: {exc.message}"
        )
        return
    published = model.parameters.value
    off = abs(implied - published) / published
    if not off <= model.parameters.tolerance:
        yield model.at("parameters", "value").error(
            PARAMETER_COUNT,
            f"the config implies {_count(implied)} parameters, {off:.2%} from the "
            f"published {_count(published)} (tolerance "
            f"{model.parameters.tolerance:.2%})",
            "check the config against the publisher's config.json, or say in "
            "parameters.note why the counts differ and widen the tolerance",
        )


def _count(value: float) -> str:
    """A count as people read it: 8,030,261,248."""
    return f"{value:,.0f}" if abs(value) < 1e18 else f"{value:.3g}"


def implied_parameters(model: Model, kind: Kind) -> float:
    """The parameter count the kind works out from the model's config."""
    from ..maths.formula import evaluate

    deployment = {p.name: p.default for p in PARAMETERS}
    env = {**field_values(model, kind), **{n: float(deployment[n]) for n in NUMERIC}}
    return evaluate(kind.parameters, env)


@rule(MODEL_SOURCES, "model-sources", Scope.MODEL)
def model_sources(model: Model, context: Context) -> Iterable[Diagnostic]:
    """The config and the parameter count each name one of the model's sources, and every
    source id is used once.

    ## What it checks
    That `config_source` and `parameters.source` are ids of `sources`, and that no two sources
    share an id.
    An editor cannot show this: a JSON Schema cannot compare one value of a file with another.
    ## Why it matters
    Every figure of the knowledge base is read from a source a reader can open.
    ## How to fix
    Add the source you copied from, or correct the id.
    ## Fails
    ```yaml
    config_source: nowhere
    ```
    ## Passes
    ```yaml
    config_source: hf-config
    ```
    """
    ids: dict[str, int] = {}
    for index, source in enumerate(model.sources):
        if source.id in ids:
            yield model.at("sources", index, "id").error(
                MODEL_SOURCES, f"source id '{source.id}' is used twice"
            )
        ids.setdefault(source.id, index)
    for pointer, named in (
        (("config_source",), model.config_source),
        (("parameters", "source"), model.parameters.source),
    ):
        if named not in ids:
            yield model.at(*pointer).error(
                MODEL_SOURCES,
                f"no source '{named}' in sources",
                f"the sources: {', '.join(ids) or 'none'}",
            )


@rule(MODEL_DEPLOYMENTS, "model-deployments", Scope.MODEL)
def model_deployments(model: Model, context: Context) -> Iterable[Diagnostic]:
    """The typical deployment is one the model is offered at, and every offered range is
    ordered.

    ## What it checks
    That each offered range is `[low, high]` with low <= high, that every value of the typical
    deployment lies in the offered range (or list) of its parameter, and that a parameter
    offered only at its default is not given another typical value.
    An editor cannot show this: a JSON Schema cannot compare one value of a file with another.
    ## Why it matters
    `kb estimate` starts from the typical deployment and refuses what is not offered; a
    typical deployment outside the offer would be refused by default.
    ## How to fix
    Widen the offer, or correct the typical value.
    ## Fails
    ```yaml
    typical: {batch: 2048}
    ```
    ## Passes
    ```yaml
    typical: {batch: 16}
    ```
    """
    for name, allowed in model.offered.items():
        if name not in DEGREES and name != "dtype" and allowed[0] > allowed[1]:
            yield model.at("offered", name).error(
                MODEL_DEPLOYMENTS, f"offered {name}: {allowed[0]} is above {allowed[1]}"
            )
            return
    try:
        resolve(model.typical, model.offered, dict(model.typical))
    except BadRequest as exc:
        name = exc.message.partition(" ")[0]
        pointer = ("typical", name) if name in model.typical else ("typical",)
        yield model.at(*pointer).error(MODEL_DEPLOYMENTS, f"typical {exc.message}")


@rule(RECIPE_CARDS, "recipe-cards", Scope.MODEL)
def recipe_cards(model: Model, context: Context) -> Iterable[Diagnostic]:
    """Every card the model's recipe binds is in the knowledge base and declares the symbols
    bound.

    ## What it checks
    That each row of the architecture kind's recipe names an entry of `entries/`, and that
    every symbol the row sets is one of that entry's `scales_with` symbols.
    An editor cannot show this: a JSON Schema sees one file's data, not the files around it.
    ## Why it matters
    The estimate is the sum of those cards; a card renamed or a symbol renamed would drop a
    term from every model of the kind without a word.
    ## How to fix
    Restore the card, or give the symbol its old name.
    ## Fails
    ```yaml
    # file: entries/gemm/lm-head.yaml
    id: gemm/lm-head
    ---
    # file: models/fixture-model.yaml
    title: Fixture model
    ```
    (The LM head's card has lost the symbols the recipe binds.)
    ## Passes
    ```yaml
    architecture: dense-decoder
    ```
    """
    kind = _kind(model)
    if kind is None:
        return
    for row in kind.rows:
        evaluator = context.cards.get(row.card)
        if evaluator is None:
            yield model.at("architecture").error(
                RECIPE_CARDS,
                f"{kind.id} {row.phase} row {row.label}: no card {row.card} in the knowledge base",
            )
            continue
        declared = {s.symbol for s in evaluator.entry.scales_with}
        for symbol in row.bindings:
            if symbol not in declared:
                yield model.at("architecture").error(
                    RECIPE_CARDS,
                    f"{kind.id} {row.phase} row {row.label}: {row.card} has no symbol {symbol}",
                    f"its symbols: {', '.join(sorted(declared))}",
                )


@rule(RECIPE_RANGES, "recipe-in-range", Scope.MODEL)
def recipe_in_range(model: Model, context: Context) -> Iterable[Diagnostic]:
    """Over every deployment the model is offered at, each value its recipe binds lies in its
    card's range.

    ## What it checks
    By interval arithmetic over the offered ranges (each offered tp, ep and pp on its own),
    that every symbol a row binds stays inside the range its card declares, wherever the
    row's count is above 0; a row left out at a degree (the all-reduce at tp = 1) is not held
    to its card's range there.
    An editor cannot show this: a JSON Schema sees one file's data, not the files around it.
    ## Why it matters
    A card's formulas are proved defined, and its claims judged, over its ranges only; a model
    that binds a card outside them would get numbers nobody checked.
    ## How to fix
    Narrow the model's offered deployments, or widen the card's range where its formulas
    hold there (with its sources).
    ## Fails
    ```yaml
    offered: {batch: [1, 100000]}
    ```
    ## Passes
    ```yaml
    offered: {batch: [1, 64]}
    ```
    """
    kind = _kind(model)
    if kind is None:
        return
    try:
        fields = field_values(model, kind)
    except (ModelError, FormulaError):
        return
    boxes = list(offered_boxes(model, fields))
    rows = [r for r in kind.rows if r.card in context.cards]
    work = len(boxes) * sum(1 + len(r.bindings) for r in rows)
    if work > RANGE_CHECK_BUDGET:
        yield model.at("offered").error(
            RECIPE_RANGES,
            f"checking the recipe over the offered deployments takes {work:,} bounds, more "
            f"than the budget of {RANGE_CHECK_BUDGET:,}",
            "offer fewer values of tp, ep and pp",
        )
        return
    said: set[tuple[str, int, str]] = set()
    for degrees, box in boxes:
        for row in rows:
            count = intervals.bounds(row.count, box)
            if count is None:
                if (row.phase, row.index, "count") not in said:
                    said.add((row.phase, row.index, "count"))
                    yield model.at("architecture").error(
                        RECIPE_RANGES,
                        f"{model.id}, {row.phase} row {row.label} ({row.card}): its count "
                        f"{row.count.text} cannot be shown finite at {_described(degrees)}",
                    )
                continue
            if count[1] < 1e-6:
                continue  # left out at these degrees
            entry = context.cards[row.card].entry
            ranges = {s.symbol: s.range for s in entry.scales_with}
            for symbol, bound in row.bindings.items():
                where = (row.phase, row.index, symbol)
                allowed = ranges.get(symbol)
                if where in said or allowed is None:
                    continue
                found = intervals.bounds(bound, box)
                message = _outside(found, allowed)
                if message is None:
                    continue
                said.add(where)
                yield model.at("architecture").error(
                    RECIPE_RANGES,
                    f"{model.id}, {row.phase} row {row.label} ({row.card}): {symbol} = "
                    f"{bound.text} {message} at {_described(degrees)}",
                    "narrow the model's offered deployments, or widen the card's range",
                )


def _outside(found: Bounds | None, allowed: tuple[float, float]) -> str | None:
    low, high = allowed
    shown = f"[{exact_number(low)}, {exact_number(high)}]"
    if found is None:
        return f"cannot be shown to stay in its card's range {shown}"
    slack_low, slack_high = abs(low) * _ROUNDING, abs(high) * _ROUNDING
    if found[0] >= low - slack_low and found[1] <= high + slack_high:
        return None
    return (
        f"reaches [{exact_number(found[0])}, {exact_number(found[1])}], outside its card's "
        f"range {shown}"
    )


def _described(degrees: Mapping[str, float]) -> str:
    return ", ".join(f"{k} = {exact_number(v)}" for k, v in degrees.items())


def offered_boxes(
    model: Model, fields: Mapping[str, float]
) -> Iterator[tuple[dict[str, float], dict[str, Bounds]]]:
    """For each combination of the offered tp, ep and pp: the degrees, and the box of every
    name a recipe reads (the fields as points, each other parameter over its offered range,
    or at its typical value or default where it is not offered)."""
    base: dict[str, Bounds] = {name: (value, value) for name, value in fields.items()}
    for parameter in PARAMETERS:
        name = parameter.name
        if name == "dtype" or name in DEGREES:
            continue
        if name in SPECULATIVE:
            from ..composition.deployment import SPECULATIVE_RANGES

            base[name] = SPECULATIVE_RANGES[name]
        elif name in model.offered:
            low, high = model.offered[name]
            base[name] = (float(low), float(high))
        else:
            value = float(model.typical.get(name, parameter.default))
            base[name] = (value, value)
    choices = [
        [float(v) for v in model.offered.get(name, [model.typical.get(name, 1)])]
        for name in DEGREES
    ]
    for combination in itertools.product(*choices):
        degrees = dict(zip(DEGREES, combination, strict=True))
        yield degrees, {**base, **{k: (v, v) for k, v in degrees.items()}}


@rule(MODEL_EVALUATES, "model-evaluates", Scope.MODEL)
def model_evaluates(model: Model, context: Context) -> Iterable[Diagnostic]:
    """The model's typical deployment evaluates, and some device of the catalog can run it.

    ## What it checks
    That `kb estimate` of the typical deployment evaluates every row of the recipe on the
    catalog, and that at least one device can run it (a device may be skipped, with its
    reason, for a figure it lacks or a degree above its scale-up domain).
    An editor cannot show this: a JSON Schema sees one file's data, not the files around it.
    ## Why it matters
    A model every command refuses is a model nobody can read.
    ## How to fix
    Follow the message: a device figure the recipe needs, a typical degree no device offers.
    ## Fails
    ```yaml
    config:
      num_hidden_layers: 1.0e+308
    ```
    (Twice that many norms is past the largest number.)
    ## Passes
    ```yaml
    typical: {tp: 1}
    ```
    """
    kind = _kind(model)
    if kind is None or not context.devices:
        return
    if any(r.card not in context.cards for r in kind.rows):
        return  # the recipe-cards rule says which
    try:
        deployment = resolve(model.typical, model.offered, {})
        found = estimate(model, deployment, context.devices.values(), context.cards)
    except (ModelError, BadRequest, EvaluationError, FormulaError) as exc:
        yield model.at("typical").error(
            MODEL_EVALUATES, f"the typical deployment: {exc.message}", key=True
        )
        return
    if not found.results:
        first = found.skipped[0]
        yield model.at("typical").error(
            MODEL_EVALUATES,
            f"no device of the catalog can run the typical deployment ({first.device}: "
            f"{first.reason})",
            key=True,
        )


@rule(DRAFT_MODELS, "draft-models", Scope.MODEL)
def draft_models(model: Model, context: Context) -> Iterable[Diagnostic]:
    """Every model named under `drafts` is a model of the knowledge base with the same
    vocabulary.

    ## What it checks
    That each id of `drafts` is a model of `models/`, not the model itself, and that its
    config's `vocab_size` is the model's own.
    An editor cannot show this: a JSON Schema sees one file's data, not the files around it.
    ## Why it matters
    A draft proposes tokens the target verifies: they must share a tokenizer, or every token
    would be rejected.
    ## How to fix
    Add the draft's model file, or correct the id.
    ## Fails
    ```yaml
    drafts: [no-such-model]
    ```
    ## Passes
    ```yaml
    drafts: []
    ```
    """
    for index, draft_id in enumerate(model.drafts):
        draft = context.models.get(draft_id)
        if draft is None or draft_id == model.id:
            why = "is the model itself" if draft_id == model.id else "is not a model of models/"
            yield model.at("drafts", index).error(DRAFT_MODELS, f"draft '{draft_id}' {why}")
        elif draft.config.get("vocab_size") != model.config.get("vocab_size"):
            yield model.at("drafts", index).error(
                DRAFT_MODELS,
                f"draft '{draft_id}' has vocab_size {draft.config.get('vocab_size')}, the "
                f"model {model.config.get('vocab_size')}",
            )


def _kind(model: Model) -> Kind | None:
    try:
        return kind_of(model)
    except ModelError:
        return None  # the schema's enum said it
