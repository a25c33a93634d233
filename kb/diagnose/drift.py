"""API-drift facts for `kb diagnose`: which releases accept a name, when it went, where it went.

An answer of a family whose file says ``api_history = true`` (api-drift, model-unsupported), or of one
of its cases, gets a ``drift`` section when its error has one of the forms below, recognised by cheap string checks:

- ImportError: cannot import name 'X' from 'Y'            -> exports of Y across releases
- AttributeError: module 'Y' has no attribute 'X'          -> the same (also after a title's or a log's words on its
                                                              line: "LoadX module 'torch' has no attribute 'y'")
- ModuleNotFoundError: No module named 'a.b'               -> modules across releases
- TypeError: C.m() got an unexpected keyword argument 'k'  -> parameters of C.m across releases
- unexpected keyword argument 'k' (no callable quoted)    -> the callables whose acceptance of k changed, if they agree
- AttributeError: 'C' object has no attribute 'a'          -> fields of C (configs, arguments); for a class the history
                                                              does not track, a verified change of drift/ (its error_form)
- AttributeError: QWenTokenizer has no attribute tokenizer  -> the same (transformers >= 4.47's tokenizer wording)
- ValueError: Some keys are not used by the HfArgumentParser: [...]  -> TrainingArguments / trl configs
- KeyError: 'qwen2' / model type `x` ... does not recognize -> transformers' config registry
- `rope_scaling` must be a dictionary with two fields      -> the rope_scaling checks
- Dataset scripts are no longer supported, but found x.py   -> a verified change of drift/ (its error_form)
- ValueError: adalomo is not a valid OptimizerNames          -> the enum's accepted values across releases
- error: argument --optim: invalid choice: 'v' (choose from 'a', ...) -> the same, for the one tracked Enum whose values
                                                              hold the choices (argparse's list of an Enum-typed field)
- Weights only load failed ... (torch.load, torch >= 2.6)    -> the default that changed (any family's answer)
- ValueError: Feature type 'List' not found (datasets)    -> the feature class as a top-level export of datasets
                                                              (data saved by a release that has it: List from 4.0.0)
- Invalid task type: 'x'. Must be one of ...               -> a value check a release added (api-history-before.toml
                                                              [[check]]: peft 0.14.0's task type)
- Please pass the argument `k=True` (raised in a covered library's frames) -> a default kept outside the signature
                                                              that a release changed (api-history-before.toml
                                                              [[default]]: datasets 2.20.0's trust_remote_code);
                                                              the answer is api-drift's whichever family matched
- TypeError: 'BertTokenizer' object is not callable          -> the history of the class's (or its base's) __call__
- TypeError: C.m() takes 3 positional arguments but 4 were given -> the tracked method m whose parameters grew so
                                                              (an override written for an older release)
- AttributeError: type object 'C' has no attribute 'a'      -> members of C, as 'C' object above
- ImportError: cannot import name 'X' (Python <= 3.7), "... from transformers" unquoted, "Cannot import name"
                                                            -> exports, the module read off an import line or the
                                                               one covered library exporting X (outside recognise:
                                                               the learned fallback still answers what it cannot)

When no signature or case matched at all, the history itself may answer (api-drift, medium confidence): for a
class member, a keyword of a named callable, a not-callable class, an override's positional count, a feature type, an
import or a module's attribute (a title cut before the module's closing quote), or the import titles above, when it
dates the change (added in / gone in a covered release) from names the error gives, not a keyword read alone unless
the report's own lines name the one library whose callables changed it (_history_answer, _named_by_report) or no
other covered callable's acceptance of it ever changed (_sole_changer: `mmap`, torch.load). An error cut before its
line in a frame that a priors frame rule names with a ``cut_key`` (tables/priors.toml: a KeyError of transformers'
config registry) is read as the one key of that kind the report's first lines quote (_cut_key: "`AutoConfig` doesn't
support `gpt-neox`"), the answer of the rule's family.

A report with no error line at all is read in prose (prose_answer, gated by diagnosis.prose_may_name_import): its first
lines saying a name cannot be imported or went ("Fail to import `X` since transformers v4.48.0", "The X function cannot be
found in a.b", "X was removed from transformers", "ImportError for function X" with the report's own import line), dated
in the module they name or the named library's latest home of the name, a version they name agreeing; argparse's
"invalid choice" line; torch.load's own words for its weights_only refusal (also as the last line of that message kept
above a traceback cut before its error line: _refusal_tail), answered as the priors table's family of UnpicklingError.
Python's words as reports retype them count there too: "cannot import named X from m" and "can not import name x from
m.n" (any identifier when Python's word "name" introduces it and a covered module qualifies it), "no module named m.n."
in any case, with a full stop, or "not module named"; and inside an error line a misspelt "has no attribtue 'x'"
(_attribute_misspelt: edit distance <= 2 from "attribute").

A message whose first line has none of the forms (a garbled title) is read on a later line that holds Python's exact
wording of an import or attribute error (_later_line).

The judged line is the error's first, or the one transformers' lazy-import wrapper ("Failed to import
transformers.x because of the following error ...:") wraps; markdown around it (**bold**, `name`) is dropped,
and a closing quote a report's backticks took ("No module named 'x.y`") is put back.

Only then is the history (kb/apidrift, a data file) loaded. The installed versions come from the log's
installed-version evidence (see VersionScanner: env reports, pip freeze/list/show, dist-info names; never
a pin in prose that speaks of another version), or from `kb diagnose --env`. Nothing here imports the
libraries it talks about.
"""

from __future__ import annotations

# The version scanner lives in kb/diagnose/versions.py (every diagnosis runs it; this module is imported only when an
# answer may get a drift section: kb/diagnose/diagnosis.py drift_stage_needed).
from kb.diagnose.answers import drift_may_read
from kb.diagnose.versions import VersionScanner
from kb.knowledge.precompiled import pattern as _rx

# ----------------------------------------------------------------------------- recognising the forms

def _between(text: str, start: str, end: str) -> str | None:
    i = text.find(start)
    if i < 0:
        return None
    i += len(start)
    j = text.find(end, i)
    return text[i:j] if j > i else None


def _quote_lost(first: str) -> str | None:
    """The class of "'C' object has no attribute 'a'" where a title or a copy lost the opening quote ("PPOTrainer'
    object has no attribute 'generate'"): a capitalised identifier that starts the line or follows a space or a
    colon, with no quote of its own before it. None otherwise (a lower-case word, a name quoted on both sides)."""
    import re

    m = re.search(r"(?:^|[\s:(\[])([A-Z][A-Za-z0-9_]{1,80})' object has no attribute '", first)
    if m is None or first[:m.start(1)].count("'") % 2:
        return None
    return m.group(1)


def _completed(callable_: str, cut: str) -> str | None:
    """The keyword a title cut inside its name ("X.compute_loss() got an unexpected keyword argument 'num_items_in_bat",
    its quote never closed): the one longer parameter starting with ``cut`` that the latest covered release of a
    tracked method of the same name takes and an earlier one did not (a keyword the library began to pass); None when
    ``cut`` is short, is itself a parameter of such a method in some release (a whole name whose closing quote a
    report lost), or more than one name fits. Loads the history, for this rare shape only."""
    if len(cut) < 4 or not cut.isidentifier():
        return None
    history = _history()
    if history is None:
        return None
    method = "." + callable_.rsplit(".", 1)[-1]
    fitting: set[str] = set()
    for lib in history.libraries():
        for path in history.callables(lib):
            if not path.endswith(method):
                continue
            if history.param_versions(lib, path, cut)[1]:
                return None
            latest = history.params(lib, path, history.versions(lib)[-1]) or []
            for param in latest:
                present, accepted = history.param_versions(lib, path, param)
                if param.startswith(cut) and param != cut and len(accepted) < len(present):
                    fitting.add(param)
    return fitting.pop() if len(fitting) == 1 else None


def _closed_from_code(message: str, code: list[str]) -> str:
    """``message`` with a name its first line lost the end of completed from the traceback's own code lines: an excerpt
    or a paste cut the last line inside the name ("AttributeError: 'GPT2Tokenizer' object has no attribute
    'build_inputs_with_special_t", its quote never closed: huggingface/transformers#1484) while the frame above it shows
    the line that read it ("tokenizer.build_inputs_with_special_tokens(...)"). The name is completed only when exactly
    one name of the code lines starts with the cut one: an attribute read after a dot, a keyword before "=", an imported
    name; otherwise, or when the line is not cut inside a quoted name, ``message`` is returned unchanged."""
    first, sep, rest = message.partition("\n")
    line = first.rstrip()
    if not code or line.count("'") % 2 == 0 or not line[-1:].isalnum() and line[-1:] != "_":
        return message
    m = _rx(r"(has no attribute|got an unexpected keyword argument|cannot import name) '([A-Za-z_]\w{3,80})$").search(line)
    if m is None:
        return message
    reads = {"has no attribute": r"\.([A-Za-z_]\w{0,120})",
             "got an unexpected keyword argument": r"\b([A-Za-z_]\w{0,120})\s{0,4}=(?!=)",
             "cannot import name": r"\b([A-Za-z_]\w{0,120})"}[m.group(1)]
    cut = m.group(2)
    names = {name for text in code if cut in text and (m.group(1) != "cannot import name" or "import" in text)
             for name in _rx(reads).findall(text) if name.startswith(cut)}
    if len(names) != 1:
        return message
    return f"{line[:m.start(2)]}{names.pop()}'{sep}{rest}"


_LAZY = "because of the following error (look up to see its traceback):"
_CUT_BEFORE_NAME = ("got an unexpected keyword argument", "cannot import name", "has no attribute", "No module named")
_CURLY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _judged_line(message: str) -> str:
    """The line of the message that states the error: the first, or, for transformers' lazy-import wrapper
    ("Failed to import transformers.x because of the following error (look up to see its traceback):"
    then the real error on the next line), the wrapped error. Markdown a report puts around it is dropped:
    ``**bold**`` and `` `name` `` quoting (as quotes: "cannot import name `X` from `y`"); runs of spaces are one."""
    first, _, rest = message.partition("\n")
    if "\u2018" in first or "\u2019" in first or "\u201c" in first or "\u201d" in first:
        # a post's typography: ‘name’ / “name” for the quotes Python printed
        first = first.translate(_CURLY)
    if "  " in first:
        # a report's doubled spaces ("unexpected keyword argument  'load_in_4bit'"): Python prints one between words
        first = " ".join(first.split())
    if first.rstrip().endswith(_CUT_BEFORE_NAME) and rest.strip():
        # a message wrapped before the name ("... unexpected keyword argument\n'max_seq_length'. Did you mean")
        first = f"{first.rstrip()} {rest.strip().split(chr(10), 1)[0].strip()}"
    if _LAZY in first:
        after = first.split(_LAZY, 1)[1].strip()
        if not after:
            after = next((line.strip() for line in rest.split("\n") if line.strip()), "")
        first = after
    if "**" in first:
        first = first.replace("**", "")
    if " has no " in first and " has no attribute " not in first:
        # a report's retyped message: "module 'torch.cuda' has no attribtue 'amp'" (apex#1260)
        first = _attribute_misspelt(first)
    if "no module named '" in first:  # a title's lower-case copy of Python's "No module named 'x'"
        first = first.replace("no module named '", "No module named '")
    if "`" in first and "'" in first:
        # a report quoted the whole message in backticks and cut it before Python's closing quote:
        # "`No module named 'transformers.modeling_bert`" -> the backtick stands for that quote
        import re

        first = re.sub(r"('[A-Za-z_][\w.]*)`(?=[\s.,;:)]|$)", r"\1'", first)
    if first.endswith(_CUT_BEFORE_NAME, 0, first.rfind(" '")) and first.count("'") % 2 == 1:
        # ... and a parser that dropped that backtick leaves the name unclosed at the line's end
        import re

        first = re.sub(r"( '[A-Za-z_][\w.]*)$", r"\1'", first)
    if "' from '" in first and first.count("'") % 2 == 1:
        # a title cut before the module's closing quote ("cannot import name 'x' from 'transformers.pytorch_utils")
        import re

        first = re.sub(r"(' from '[A-Za-z_][\w.]*)$", r"\1'", first.rstrip())
    if "`" in first and "model type `" not in first and "`rope_scaling`" not in first:
        quoted = first.split("`")
        if len(quoted) % 2 == 1:  # paired backticks only: `X` -> 'X'
            first = "".join(part if i % 2 == 0 else f"'{part}'" for i, part in enumerate(quoted))
    return first.strip()


def _near(word: str, target: str) -> bool:
    """Whether ``word`` is ``target`` with at most two letters swapped, dropped, added or changed (edit distance <= 2;
    both words are short, so the table is small)."""
    if abs(len(word) - len(target)) > 2:
        return False
    row = list(range(len(target) + 1))
    for i, a in enumerate(word, 1):
        prev, row[0] = row[0], i
        for j, b in enumerate(target, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (a != b))
    return row[-1] <= 2


def _attribute_misspelt(first: str) -> str:
    """``first`` with a misspelt "attribute" after "has no " ("has no attribtue 'amp'", "has no atribute 'x'") put
    right, when a quoted name follows it; unchanged otherwise."""
    import re

    m = re.search(r" has no ([a-z]{6,11}) '", first)
    if m is None or not m.group(1).startswith("a") or not _near(m.group(1), "attribute"):
        return first
    return first[:m.start(1)] + "attribute" + first[m.end(1):]


def _prose_module_attribute(first: str) -> dict[str, str] | None:
    """{"name", "module"} of "module 'torch' has no attribute 'x'" that words precede on its line: a title's node name
    ("LoadInvSRModels module 'torch' has no attribute 'get_default_device'") or a host's log prefix ("!!! Exception
    during processing !!! module 'torch' ..."), or a CJK sentence with no space before it. Python 2's "'module' object
    has no attribute" is not this form."""
    if "module '" not in first:  # (turn 46) what the pattern needs: most attribute errors ask nothing of re here
        return None
    import re

    # a CJK sentence runs into the message without a space ("...的torch，显示module 'torch.nn.functional' has no ...")
    m = re.search(r"(?:^|[\s:!>\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef])module '([A-Za-z_][\w.]*)' has no attribute "
                  r"'([A-Za-z_]\w*)'", first)
    return None if m is None else {"name": m.group(2), "module": m.group(1)}


def _later_line(error_type: str, message: str) -> tuple[str, dict[str, str]] | None:
    """The form of a later line of the message when its first line has none: a report's garbled title ("attributeError
    : moduletorch has no attribute 'get default device'") with Python's own words in the lines the report pasted
    under it. Only a line holding Python's exact quoted wording of an import or attribute error counts."""
    for line in message.split("\n")[1:40]:
        if not any(w in line for w in ("cannot import name '", "has no attribute '", "No module named '")):
            continue
        found = recognise(error_type, line.strip())
        if found is not None and found[0] in ("import-name", "module-attribute", "no-module"):
            return found
    return None


def _key_of(first: str) -> str | None:
    """The key of a KeyError message, with or without prose after it ("'qwen2' when loading")."""
    first = first.strip()
    if first[:1] in ("'", '"'):
        end = first.find(first[0], 1)
        if end < 0:
            return None
        rest = first[end + 1:]
        # prose or punctuation after it, or the closing backtick of a code span around the error ("`KeyError: 'x'`)")
        if rest and not rest[:1].isspace() and rest[:1] not in ",.;:)`":
            return None
        return first[1:end]
    return first if " " not in first else None


def _readers(name: str, texts: list[str]) -> str:
    """The dotted modules that nearby lines read ``name`` off ("with torch.no_grad():" -> "torch"), innermost
    (last) line first, one per line as "a|b": Python 2's "'module' object has no attribute 'no_grad'" names no
    module, the code line does. Names that are not modules (self, cls, a local) are the answer's to skip."""
    import re

    found: list[str] = []
    pattern = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\." + re.escape(name) + r"(?![\w])")
    for text in reversed(texts):
        for module in pattern.findall(text[:2000]):
            if module not in found and module.split(".")[0] not in ("self", "cls"):
                found.append(module)
    return "|".join(found)


def _importers(name: str, texts: list[str]) -> str:
    """The modules nearby lines import ``name`` from ("from transformers import AdamW, get_scheduler" ->
    "transformers"), innermost (last) line first, as "a|b"; "" when none does."""
    import re

    found: list[str] = []
    pattern = re.compile(r"\bfrom\s+([A-Za-z_][\w.]*)\s+import\s+\(?[^#\n]*?(?<![\w.])" + re.escape(name) + r"(?![\w])")
    for text in reversed(texts):
        for module in pattern.findall(text[:2000]):
            if module not in found:
                found.append(module)
    return "|".join(found)


def _bare_import(message: str, code: list[str]) -> tuple[str, dict[str, str]] | None:
    """Python <= 3.7's "cannot import name 'AdamW'" (no module): the module a nearby line imports it from ("from
    transformers import AdamW, ..."), else "" for the answer to read the library off the name alone. Not one of
    recognise's forms: the learned fallback still answers such an error when the history dates no change of it."""
    first = _judged_line(message)
    if "cannot import name '" in first and "' from '" in first:
        return None  # recognise's own form
    first = first.replace("Cannot import name '", "cannot import name '")  # a title's capital
    if "cannot import name '" not in first:
        return None
    name = _between(first, "cannot import name '", "'")
    if not name or not name.isidentifier():
        return None
    if "' from '" in first:  # only the capital differed: the module is quoted
        module = _between(first, "' from '", "'")
        return ("import-name", {"name": name, "module": module, "bare": "capital"}) if module else None
    if "' from " in first:  # a report's unquoted module: "... from transformers"
        words = first.split("' from ", 1)[1].split()
        module = words[0].strip("`\"'.,;:()") if words else ""
        if module and module.replace(".", "").replace("_", "").isalnum() and module[:1].isalpha():
            return "import-name", {"name": name, "module": module, "bare": "unquoted"}
        return None
    importers = _importers(name, [*message.split("\n")[1:], *code])
    return "import-name", {"name": name, "module": importers.split("|")[0], "modules": importers, "bare": "no-module"}


def recognise(error_type: str, message: str, code: list[str] | None = None,
              before: str = "") -> tuple[str, dict[str, str]] | None:
    """(form, fields) for the error forms the history can answer, by string checks only. ``code``: nearby
    lines (the traceback's code lines, the lines around the error), read only for a form that names no module;
    ``before``: the text just before the message on its line (a paraphrase's "SFTrainer:" the parser cut off)."""
    first = _judged_line(message)
    short = error_type.rsplit(".", 1)[-1]
    if short.endswith("Warning") and "deprecated" in first:
        # a library's deprecation warning ("FutureWarning: This implementation of AdamW is deprecated ..."): the
        # history keeps the deprecations its sources state, with the release that removed the old form
        return "deprecation", {"said": message.partition("\n")[0].strip()}
    if "is now removed" in first and "deprecated since version" in first:
        # torch's raising stub of a removed function ("This function [torch.solve] was deprecated since version 1.9
        # and is now removed. Please use the `torch.linalg.solve` function instead."): the name from the message's
        # brackets or its "`torch.x` is deprecated", or the stub's frame ("in solve"); the replacement it names
        import re

        named = re.search(r"\[torch\.([A-Za-z_]\w*)\]|[`']torch\.([A-Za-z_]\w*)[`'] is deprecated", first)
        framed = re.search(r"_linalg_utils\.py\S*, line \d+, in ([A-Za-z_]\w*)", "\n".join([message, *(code or [])]))
        name = next((g for g in (named.groups() if named else ()) if g), None) or (framed.group(1) if framed else "")
        uses = [u for u in re.findall(r"[`'](torch\.[A-Za-z_][\w.]*)[`']", first.split("is now removed", 1)[1])
                if u != f"torch.{name}"]
        return "removed-stub", {"name": name, "replacement": uses[0] if uses else ""}
    if "Unknown task " in first and ", available tasks are" in first:
        # transformers' pipeline() on a task name its release does not have: "Unknown task translation, available
        # tasks are [...]" (5.0.0 dropped translation, summarization, text2text-generation, image-to-text)
        task = _between(first, "Unknown task ", ", available tasks are")
        if task and task.replace("-", "_").isidentifier():
            return "pipeline-task", {"name": task}
    if "Tokenizer class " in first and " does not exist or is not currently imported" in first:
        # AutoTokenizer found the tokenizer_config.json's class among none of transformers' exports (its fast twin
        # first): "Tokenizer class Qwen2Tokenizer does not exist or is not currently imported" on a transformers
        # older than the class
        name = _between(first, "Tokenizer class ", " does not exist")
        if name and name.isidentifier():
            return "tokenizer-class", {"name": name}
    if first.startswith("No name '") and "' in module '" in first:
        # pylint's E0611 (no-name-in-module): "No name 'SiLUActivation' in module 'transformers.activations'"
        name, module = _between(first, "No name '", "'"), _between(first, "' in module '", "'")
        if name and module and name.isidentifier():
            return "import-name", {"name": name, "module": module}
    if "cannot import name '" in first:
        name, module = _between(first, "cannot import name '", "'"), _between(first, "' from '", "'")
        if name and module:
            return "import-name", {"name": name, "module": module}

    if "No module named '" in first:
        module = _between(first, "No module named '", "'")
        if module:
            return "no-module", {"module": module}
    if "is an invalid keyword argument for Unpickler()" in first:
        # torch.load hands every keyword it does not know on to the pickle module's Unpickler (**pickle_load_args),
        # so a torch older than a load() keyword reports it there: "'weights_only' is an invalid keyword argument
        # for Unpickler()" (torch.load gained weights_only in 1.13.0); read as load()'s own unexpected keyword
        import re

        m = re.search(r"'([A-Za-z_]\w*)' is an invalid keyword argument for Unpickler\(\)", first)
        if m:
            return "unexpected-kwarg", {"callable": "torch.load", "name": m.group(1)}
    if "got an unexpected keyword argument '" in first:
        head = first.split("() got an unexpected keyword argument '")[0]
        if "() got an unexpected keyword argument '" not in first:
            # a report's copy without the call's parentheses: "multi_head_attention_forward got an unexpected keyword
            # argument 'average_attn_weights'" (DualCoOp#11); a word of prose ("Datasets module got ...") is no call
            bare = first.split(" got an unexpected keyword argument '")[0].split()
            said = _between(first, "got an unexpected keyword argument '", "'") or ""
            if bare and said.isidentifier() and ("_" in bare[-1] or "." in bare[-1]) \
                    and bare[-1].replace(".", "").isidentifier():
                head = " ".join(bare)
        kwarg = _between(first, "got an unexpected keyword argument '", "'")
        callable_ = head.split()[-1] if head.split() else ""
        if not callable_.isascii():
            # prose glued to the name with no space between (a report in Chinese: "Qlora过程中报BaiChuanForCausalLM")
            import re

            glued = re.search(r"[A-Za-z_][A-Za-z0-9_.]*$", callable_)
            callable_ = glued.group(0) if glued else ""
        if callable_ == "init" or callable_.endswith(".init") and callable_.rsplit(".", 2)[-2][:1].isupper():
            # markdown ate the dunder: `__init__()` renders as bold "init()" ("LoraConfig.init() got ...");
            # a function named init (wandb.init) is left alone
            callable_ = callable_[:-4] + "__init__"
        raw = message.partition("\n")[0].rstrip()
        if kwarg and "." in callable_ and raw.endswith(f"'{kwarg}"):
            kwarg = _completed(callable_, kwarg) or kwarg  # a title cut inside the name, its quote never closed
        if kwarg and callable_ and callable_.replace(".", "").isidentifier():  # not "got an ..." with no callable
            return "unexpected-kwarg", {"callable": callable_, "name": kwarg}
    if "unexpected keyword argument '" in first and "got an unexpected" not in first and "got unexpected" not in first:
        # a title that quotes the TypeError without its callable ("unexpected keyword argument 'load_in_4bit'"):
        # the answer reads the callable off the keyword alone (kb/apidrift/answer.py, _keyword_only)
        kwarg = _between(first, "unexpected keyword argument '", "'")
        if kwarg and kwarg.isidentifier():
            return "unexpected-kwarg", {"callable": "", "name": kwarg}
    if "unexpected keyword" in first:
        # a report's paraphrase: "SFTrainer: got unexpected keyword model_init_kwargs" (no "an", no quotes)
        import re

        said = f"{before.strip()} {first}" if first.startswith("got ") and before.strip() else first
        m = re.search(r"(?<![\w.])([A-Z]\w*(?:\.\w+)?)(?:\(\))?:?\s+got\s+(?:an\s+)?unexpected\s+keyword"
                      r"(?:\s+argument)?\s+['\"`]?([A-Za-z_]\w*)", said)
        if m:
            callable_ = m.group(1) if "." in m.group(1) else f"{m.group(1)}.__init__"
            if callable_.endswith(".init") and callable_[:1].isupper():  # markdown ate the dunder (see above)
                callable_ = callable_[:-4] + "__init__"
            name = m.group(2)
            spaced = re.search(r"keyword(?:\s+argument)?\s+['\"`]([A-Za-z_]\w*(?: [A-Za-z_]\w*){1,3})['\"`]", said)
            if spaced and spaced.group(1).startswith(name + " "):
                # a report that typed the keyword's underscores as spaces ('dispatch batches'): no Python name has a
                # space; the history answers only if the callable's acceptance of the joined name changed
                name = spaced.group(1).replace(" ", "_")
            return "unexpected-kwarg", {"callable": callable_, "name": name}
        # a paraphrase that names a package, not a callable ("Datasets module got an unexpected keyword argument
        # 'k'"): the answer reads the callable off the keyword among that library's callables, if it is covered
        m = re.search(r"(?<![\w.])([A-Za-z][\w]*)\s+(?:module|library|package)\s+got\s+an?\s+unexpected\s+keyword"
                      r"\s+argument\s+['\"`]([A-Za-z_]\w*)", said)
        if m:
            return "unexpected-kwarg", {"callable": "", "name": m.group(2), "library": m.group(1).lower()}
    if "has no attribute '" in first:
        attr = _between(first, "has no attribute '", "'")
        module = _between(first, "module '", "'")
        if attr and module and first.lstrip().startswith(("module '", "partially initialized module '")):
            return "module-attribute", {"name": attr, "module": module}
        glued = _prose_module_attribute(first)
        if glued is not None:  # a title's or a log's words before Python's message ("LoadX module 'torch' has ...")
            return "module-attribute", glued
        cls = _between(first, "'", "' object has no attribute")
        if cls is None:
            cls = _quote_lost(first)
        if cls is None and " has no attribute '" in first:
            # transformers >= 4.47's tokenizer __getattr__ with the name quoted by the report: "Qwen2Tokenizer has
            # no attribute 'encode_plus'"
            import re

            m = re.search(r"(?:^|[\s:])([A-Z][A-Za-z0-9_]{1,80}) has no attribute '", first)
            cls = m.group(1) if m and not first.lstrip().startswith("type object") else None
        if cls is None and first.lstrip().startswith("type object '"):  # a class's own attribute: C.from_x(...)
            cls = _between(first, "type object '", "' has no attribute")
        if attr and cls == "module":  # Python 2: the module is the one a nearby line reads the attribute off
            readers = _readers(attr, [*message.split("\n")[1:], *(code or [])])
            return ("module-attribute", {"name": attr, "module": readers.split("|")[0], "modules": readers}) \
                if readers else None
        if attr and cls:
            return "object-attribute", {"cls": cls, "name": attr}
    unquoted = first.split(". Did you mean", 1)[0]  # Python 3.10+'s suggestion quotes a near name
    if " has no attribute " in unquoted and "'" not in unquoted:
        # transformers >= 4.47's tokenizer __getattr__ words it without quotes: "QWenTokenizer has no attribute tokenizer"
        head, _, tail = unquoted.partition(" has no attribute ")
        cls, attr = (head.split() or [""])[-1], (tail.split() or [""])[0].rstrip(".,;:")
        if cls.endswith(("Tokenizer", "TokenizerFast")) and cls.isidentifier() and attr.isidentifier():
            return "object-attribute", {"cls": cls, "name": attr}
        # transformers' _LazyModule.__getattr__ words a module's miss without quotes: "module transformers has no
        # attribute SiglipImageProcessorFast" (the same miss as Python's "module 'transformers' has no attribute ...")
        words = head.split()
        if len(words) >= 2 and words[-2] == "module" and attr.isidentifier() and words[-1][:1].isalpha() \
                and words[-1].replace(".", "_").isidentifier():
            return "module-attribute", {"name": attr, "module": words[-1]}
    if first.startswith("No ") and " attribute " in first and "'" not in first and short in ("AttributeError", ""):
        # a lazy package's own __getattr__ (huggingface_hub's): "No huggingface_hub attribute list_files_info", the
        # same miss as Python's "module 'huggingface_hub' has no attribute 'list_files_info'"
        words = first.split()
        if len(words) == 4 and words[2] == "attribute" and words[3].isidentifier() \
                and words[1].replace(".", "_").isidentifier() and words[1][:1].isalpha():
            return "module-attribute", {"name": words[3], "module": words[1]}
    if " for " in first and "validation error" in first and "\n" in message:
        # pydantic: "3 validation errors for DeepSpeedZeroConfig", then each field and its reason on the next lines;
        # a field the model forbids ("extra fields not permitted", v2 "Extra inputs are not permitted") is a
        # config key the installed release does not know: read as that class's member
        cls = first.rsplit(" for ", 1)[1].strip().strip("'\"`")
        lines = [line.strip() for line in message.split("\n")[1:12]]
        for field, reason in zip(lines, lines[1:]):
            if reason.lower().startswith(("extra fields not permitted", "extra inputs are not permitted")) \
                    and field.isidentifier() and cls.isidentifier() and cls[:1].isupper():
                return "object-attribute", {"cls": cls, "name": field}
    if "' object is not callable" in first and first.lstrip().startswith("'"):
        cls = _between(first, "'", "' object is not callable")
        if cls and cls.isidentifier() and cls[:1].isupper():
            # a class whose instances became callable in a later release ('BertTokenizer' object is not callable:
            # tokenizers got __call__ in transformers 3.0.0): read as its `__call__` method's history
            return "not-callable", {"cls": cls}
    if "not used by the HfArgumentParser" in first:
        return "hfargparser-unused", {"keys": first.split("HfArgumentParser:", 1)[-1].strip()}
    if "does not recognize this architecture" in first and "model type " in first:
        # "model type `x` but", or "model type x but" where a report's markdown ate the backticks (one word then)
        model_type = _between(first, "model type `", "`") if "model type `" in first else \
            _between(first, "model type ", " but Transformers")
        if model_type and " " not in model_type:
            return "model-type", {"model_type": model_type}
    if short == "KeyError":
        key = _key_of(first)
        if key and key.replace("_", "").replace("-", "").isalnum() and key[:1].islower() and " " not in key:
            return "model-type", {"model_type": key}
    if "rope_scaling" in first and "two fields" in first:
        return "rope-scaling", {"got": first.split("got", 1)[-1] if "got" in first else ""}
    if " is not a valid " in first:
        value, _, rest = first.partition(" is not a valid ")
        value = value.split(":")[-1].strip().strip("'\"`")
        enum = rest.split()[0].strip(",.;:'\"`") if rest.split() else ""
        if enum and not enum.isascii():
            # prose glued to the enum's name with no space between (a report in Chinese: "OptimizerNames这个错误")
            enum = enum[:next(i for i, ch in enumerate(enum) if not ch.isascii())].strip(",.;:'\"`")
        if value and enum[:1].isupper() and enum.isidentifier() and " " not in value:
            return "enum-value", {"value": value, "enum": enum}
    if ": invalid choice: " in first and "(choose from " in first:
        # argparse: "error: argument --optim: invalid choice: 'paged_adamw_32bit' (choose from 'adamw_hf', ...)", the
        # choices of a dataclass field typed with an Enum (HfArgumentParser): the Enum is the one whose values they are
        import re

        m = re.search(r"argument ([-\w./]+): invalid choice: '([^']+)' \(choose from ([^()\n]{1,4000})\)", first)
        if m:
            listed = m.group(3)
            choices = re.findall(r"'([^']+)'", listed) if "'" in listed else [c.strip() for c in listed.split(",")]
            if choices and all(c.replace("_", "").replace("-", "").isalnum() for c in choices):
                return "enum-value", {"value": m.group(2), "enum": "", "choices": "|".join(choices),
                                      "argument": m.group(1).split("/")[0]}
    if " positional argument" in first and " given" in first and "() takes " in first:
        # an override called with more arguments than it takes: "CPMTrainer.training_step() takes 3 positional
        # arguments but 4 were given" (the library's caller gained a parameter; self counted in both)
        import re

        m = re.search(r"(?<![\w.])([A-Za-z_][\w.]*)\(\) takes (\d+) positional arguments? but (\d+) (?:were|was) given",
                      first)
        if m and "." in m.group(1):
            return "positional-count", {"callable": m.group(1), "takes": m.group(2), "given": m.group(3)}
    if first.startswith("Invalid ") and ". Must be one of" in first:
        # a value check a release added: "Invalid task type: 'Vector_LM'. Must be one of the following task types: ..."
        import re

        m = re.match(r"Invalid [A-Za-z][\w ]{0,40}: ['`\"]([^'`\"]{1,100})['`\"]\. Must be one of", first)
        if m:
            return "value-check", {"message": first, "value": m.group(1)}
    if "Weights only load failed" in first or "weights_only" in first and "torch.load" in first:
        return "default-change", {"callable": "torch.load", "name": "weights_only", "message": first}
    if "Feature type '" in first and "' not found" in first:
        # datasets' schema reader: "ValueError: Feature type 'List' not found. Available feature types: [...]": data
        # (a saved dataset, a Hub dataset's metadata) names a feature class the installed datasets lacks
        name = _between(first, "Feature type '", "'")
        if name and name.isidentifier() and name[:1].isupper():
            return "feature-type", {"name": name}
    if "ataset scripts are no longer supported" in first or "trust_remote_code` is not supported anymore" in first \
            or "trust_remote_code' is not supported anymore" in first:
        # datasets 4.0's RuntimeError, a title's lower-case copy of it, or the line datasets logs before it (with
        # backticks) when the paste stops there
        script = first.split("but found", 1)[1].strip().rstrip(".") if "but found" in first else ""
        said = first.replace("dataset scripts are no longer", "Dataset scripts are no longer")  # the library's case
        return "verified-change", {"message": said, "script": script}
    return None


def drift_section(error_type: str, message: str, facts: dict[str, str] | None = None,
                  env_versions: dict[str, str] | None = None, code: list[str] | None = None,
                  after: list[str] | None = None, before: str = "", files: list[str] | None = None) -> dict | None:
    """The `drift` section for one error, or None when the form is not one the history answers. ``code``:
    the traceback's code lines and the lines before the error, outermost first (they name the class of a
    bare "__init__() got an unexpected keyword argument"); ``after``: the lines after the error (with ``code``,
    they name the module of Python 2's "'module' object has no attribute"); ``before``: the line before the
    message (see recognise); ``files``: the traceback's frames' files (whose code raised: a model's remote code
    under transformers_modules/, say)."""
    recognised = recognise(error_type, message, [*(code or []), *(after or [])], before) \
        or _bare_import(message, [*(code or []), *(after or [])]) or _later_line(error_type, message)
    if recognised is None:
        return None
    form, fields = recognised
    if form == "object-attribute":  # for a class the history does not track (kb/apidrift/answer.py, _untracked_class)
        fields["said"] = _judged_line(message)
        fields["nearby"] = "\n".join([*message.split("\n")[1:], *(code or []), *(after or [])])
        fields["files"] = "\n".join(files or [])
    if form == "hfargparser-unused" and "'" not in fields["keys"]:
        # the message's list is not shown ("{remaining_args}" quoted from the source): the report's lines around it
        fields["nearby"] = "\n".join([*message.split("\n")[1:], *(after or [])])
    if form == "unexpected-kwarg" and fields["callable"] == "__init__" and code:
        fields["code"] = "\n".join(code)
    if form == "unexpected-kwarg" and fields["callable"] == "__init__":  # the message's later lines, then after it
        fields["after"] = "\n".join([*message.split("\n")[1:], *(after or [])])
    if _no_history_answer(form, fields):
        return None
    history = _history() if form == "no-module" and "." not in fields["module"] else None
    if history is not None and history.versions(fields["module"]):
        # the library itself is not installed, a library the history covers: the answer needs nothing else of the
        # history (kb/apidrift/section.py, which answer.py's _module builds it with too), nor the 3,000 lines of
        # answer.py (turn 50: ~3.3 million instructions of "No module named 'peft'"'s ~100 million)
        from kb.apidrift.section import Drift, not_installed

        section = not_installed(Drift(form, None), fields["module"]).doc
    else:
        # only now: the history's data file is read for these errors
        from kb.apidrift.answer import answer

        try:
            section = answer(form, fields, facts or {}, env_versions)
        except OSError:  # the data file is missing (a source checkout without it)
            return None
    from kb.diagnose.redact import redact_tree

    return redact_tree(section)  # the name it talks about is the user's: a token passed as a keyword, say


def _no_history_answer(form: str, fields: dict[str, str]) -> bool:
    """Whether kb/apidrift/answer.py's answer for this form is None by its first checks alone, told without importing
    that module (re, typing and 2,700 lines: ~10 ms of a `kb diagnose`) or reading a section of the history (turn 46):
    an attribute of one of Python's own types ("'NoneType' object has no attribute 'shape'": _object_attribute), or a
    module, an import or a module's attribute of a package the history does not cover ("No module named 'flash_attn'":
    _module, _import ask ``h.versions(lib)`` first). The covered packages are the history's own, from its packed head in
    the cache folder (kb/knowledge/history_pack.py: ~0.6 ms), asked as answer.py asks them."""
    if form == "object-attribute":
        from kb.apidrift.python_types import PYTHON_TYPES

        return fields["cls"] in PYTHON_TYPES
    if form == "no-module" or form in ("import-name", "module-attribute") and fields.get("bare") != "no-module" \
            and not fields.get("modules"):  # (the two forms whose module _import reads off nearby lines: not here)
        history = _history()
        return history is not None and not history.versions(fields["module"].split(".")[0])
    return False


def attach_drift(answers: list, knowledge, versions: dict[str, str] | None = None, errors: list | None = None,
                 head: list[str] | None = None) -> None:
    """The API-drift stage of the pipeline: each answer of a family whose file asks for the API history
    (``api_history = true``) gets the facts for its error. ``versions``: this machine's (`kb diagnose
    --env`), used where the log named none. ``errors``: every error the log showed (see _deeper_module).
    ``head``: the report's first lines (a title), read only for a TypeError cut inside a call (_cut_call)."""
    families = knowledge.api_history_families
    for answer in answers:
        m = answer.match
        if not drift_may_read(m, families):
            continue
        if m.entry.family in families:
            code = [*m.error.context, *(f.code for f in m.error.frames if f.code)]
            message, first = m.error.message, None
            if not message and not m.error.noise:  # a traceback cut before its error line: the words above it
                message = report_words(m.error.context, m.error.type or "") or _cut_call(m.error, head or [])
            deeper = _deeper_module(m.error.type or "", message, errors or [])
            if deeper is not None:
                first, message = message.split("\n", 1)[0], deeper
            answer.drift = drift_section(m.error.type or "", message, m.environment, versions, code,
                                         list(m.error.after), m.error.context[-1] if m.error.context else "",
                                         [f.file for f in m.error.frames])
            if first and answer.drift is not None:
                answer.drift["facts"].insert(0, f"the log's first error ({_quoted(first.strip(), 120)}) was followed by this "
                                                "one: the library was installed, and a module of it is missing")
            if answer is answers[0] and answer.drift is not None and errors:
                _also(answer.drift, message, errors, m.environment, versions)
            asked = _asked_default(m.error) if answer.drift is None else None
            if asked is not None:  # "Please pass the argument `k=True`": a default the raising library changed
                section = _default_section(asked, m.environment, versions)
                if section is not None and section.get("removed_in"):
                    if m.entry.family != "api-drift":
                        answers[answers.index(answer)] = answer = _as_api_drift(knowledge, answer, section)
                    answer.drift = section
        elif _default_change(m.error.type or "", m.error.message):
            # a default that changed (torch.load's weights_only) is answered from the history for any family
            # whose answer it is (checkpoint-io): the release that changed it and the call that restores the old one
            answer.drift = drift_section(m.error.type or "", m.error.message, m.environment, versions)
    if not answers and errors:
        found = _history_answer(knowledge, errors, versions, head or []) or _refusal_tail(knowledge, errors, versions) \
            or _cut_call_answer(knowledge, errors, versions, head or []) \
            or _cut_key_answer(knowledge, errors, versions, head or [])
        if found is not None:
            answers.append(found)


def _cut_call(error, head: list[str]) -> str:  # noqa: ANN001 - a ParsedError
    """Python's message for a TypeError whose traceback was cut inside the call that raised it (a notebook's cell
    shown down to its arrow line ``x = TrainingArguments(`` and the keywords under it, then nothing): "C.__init__()
    got an unexpected keyword argument 'k'" when exactly one keyword the cell passes is named in the report's first
    lines (its title: "evaluation_strategy 廃止に伴うコードの変更", drift-14-llm-book-56); "" otherwise (no call, no
    keyword the title names, or several: the cell alone does not say which keyword the release refused)."""
    if error.message or error.noise or (error.type or "").rsplit(".", 1)[-1] != "TypeError" or not error.frames:
        return ""
    import re  # (turn 46) after the test above: most errors ask nothing of re here (its import: ~3-5 ms)

    call = re.search(r"(?<![\w.])([A-Za-z_][\w.]*)\(\s*$", error.frames[-1].code or "")
    if call is None:
        return ""
    name = call.group(1)
    callable_ = f"{name}.__init__" if name.rsplit(".", 1)[-1][:1].isupper() else name
    passed = [m.group(1) for line in error.context
              if (m := re.match(r"\s*(?:-*>\s*)?(?:\d+\s+)?([A-Za-z_]\w*)\s*=(?!=)", line))]
    named = [k for k in dict.fromkeys(passed) if _api_name(k)
             and any(re.search(rf"(?<![\w.]){re.escape(k)}(?!\w)", line) for line in head)]
    return f"{callable_}() got an unexpected keyword argument '{named[0]}'" if len(named) == 1 else ""


def _cut_key_rule(error, rules: list[dict]) -> dict | None:  # noqa: ANN001 - a ParsedError
    """The priors' frame rule (tables/priors.toml [[frame]]) with a ``cut_key`` that holds for one of the frames of an
    error cut before its message ("KeyError    Traceback (most recent call last)", the key's line never pasted) and
    for its class: the frame looks a key of the API history's kind up (transformers' config registry, model types).
    None for another error, or frames no such rule names."""
    if error.message or error.noise or not error.frames:
        return None
    short = (error.type or "").rsplit(".", 1)[-1]
    for rule in rules:
        if not rule["cut_key"] or not any(t.rsplit(".", 1)[-1] == short for t in rule["types"]):
            continue
        if any(_rx(rule["file"]).search(frame.file.replace("\\", "/")) for frame in error.frames):
            return rule
    return None


def _cut_key(error, head: list[str], rules: list[dict]) -> tuple[str, dict | None]:  # noqa: ANN001 - a ParsedError
    """The message of an error cut before it whose frames a cut-key rule names (_cut_key_rule), read off the report's
    first lines when they quote one key of the rule's kind a covered release knows ("`AutoConfig` doesn't support
    `gpt-neox`": 'gpt_neox', the registry's spelling of the model type), with the rule; ("", None) when they quote
    none or several, or no rule holds."""
    rule = _cut_key_rule(error, rules)
    if rule is None:
        return "", None
    import re  # (turn 46) once a rule holds: most errors ask nothing of re here (its import: ~3-5 ms)

    known = _KEY_KINDS[rule["cut_key"]]
    named: set[str] = set()
    for line in head[:MAX_PARAPHRASE_LINES]:
        for quoted in re.findall(r"[`'\"]([A-Za-z][\w.-]{1,40})[`'\"]", line):
            key = quoted.lower().replace("-", "_")
            if key.replace("_", "").isalnum() and known(key) is not None:
                named.add(key)
    return (f"'{named.pop()}'", rule) if len(named) == 1 else ("", None)


def _cut_key_answer(knowledge, errors: list, versions: dict[str, str] | None, head: list[str]):  # noqa: ANN001, ANN202
    """The answer of the family a cut-key frame rule names (tables/priors.toml: a KeyError that transformers' config
    registry raised with its key's line cut off, model-unsupported), when the report's first lines quote the one key
    (_cut_key) and the history dates it after the release the log states (transformers knows `gpt_neox` from 4.20.0;
    the report runs 4.11.3); None otherwise."""
    priors = knowledge.tables.get("priors") if hasattr(knowledge, "family") else None
    if not priors or not head:
        return None
    for error in errors:
        said, rule = _cut_key(error, head, priors["frame"])
        if rule is None:
            continue
        family = knowledge.family(rule["family"])
        if family is None:
            continue
        short = (error.type or "").rsplit(".", 1)[-1]
        section = drift_section(short, said, VersionScanner().read_lines([*head, *error.context]), versions)
        if section is None or not section.get("added_in"):
            continue
        installed = section.get("installed")
        if installed and _version_key(installed) >= _version_key(section["added_in"]):
            continue  # the installed release knows it: not a release too old for the key
        kind, lookup = rule["cut_key"].replace("_", " "), rule["lookup"]
        where = next(f.file.replace("\\", "/") for f in reversed(error.frames)
                     if _rx(rule["file"]).search(f.file.replace("\\", "/")))
        where = where.rsplit(f"/{section['library']}/", 1)[-1]
        section["facts"].insert(0, f"the traceback stops before the {short}'s line; {lookup} (`{where}`) raised it "
                                   f"and the report's first lines name one {kind}: `{said.strip(chr(39))}`")
        evidence = [f"line {error.line_no}: a {short} of {lookup}, its key cut off; the report's first lines name "
                    f"the {kind} {said}",
                    f"the API history dates it: `{section['subject']}`: " + _dated(section)]
        return _history_prior(family, "history", error, 0.6, evidence,
                              f"the report names a {kind} the installed {lookup} lacks", knowledge, section)
    return None


def _cut_call_answer(knowledge, errors: list, versions: dict[str, str] | None, head: list[str]):  # noqa: ANN001, ANN202
    """The api-drift answer for a TypeError cut inside its call (_cut_call) when the history dates a change of the
    keyword the report's title names for that callable; None otherwise."""
    family = knowledge.family("api-drift") if hasattr(knowledge, "family") else None
    if family is None or not head:
        return None
    for error in errors:
        said = _cut_call(error, head)
        if not said:
            continue
        code = [*error.context, *(f.code for f in error.frames if f.code)]
        section = drift_section("TypeError", said, {}, versions, code)
        if section is None or not (section.get("removed_in") or section.get("added_in")):
            continue
        evidence = [f"line {error.line_no}: the traceback stops inside the call `{_quoted((error.frames[-1].code or '').strip(), 80)}`; "
                    f"of the keywords it passes, the report's first lines name one: `{said}`",
                    f"the API history dates the keyword: `{section['subject']}`"]
        return _history_prior(family, "error", error, 0.6, evidence,
                              "the call passes a keyword that a release of its library does not accept", knowledge, section)
    return None


def _asked_default(error) -> dict[str, str] | None:  # noqa: ANN001 - a ParsedError
    """{"callable", "name"} for an error that asks to pass a keyword ("Please pass the argument
    `trust_remote_code=True` to allow custom code to be run") raised in the frames of a covered library whose
    keyword's effective default the history notes a release changed (tables/api-history-before.toml [[default]],
    one callable of that library with that keyword); None otherwise: another library's frames (transformers'
    own check of the same keyword), no frames, or a keyword no noted default has. (Fixed patterns: the regex cache's,
    not `re`, whose import cost every input that reached here ~4-5 ms: turn 48.)"""
    m = _rx(r"\bpass(?:ing)? the argument [`'\"]?([A-Za-z_]\w*)=[`'\"]?[A-Za-z_]\w*").search(error.message or "")
    if m is None or not error.frames:
        return None
    found = _rx(r"[/\\](?:site|dist)-packages[/\\]([A-Za-z_]\w*)[/\\]").search(error.frames[-1].file)
    h = _history() if found else None
    if h is None or found.group(1) not in h.libraries():
        return None
    rows = h.noted_defaults(found.group(1), m.group(1))
    return {"callable": rows[0]["callable"], "name": m.group(1)} if len(rows) == 1 else None


def _default_section(fields: dict[str, str], facts: dict[str, str], versions: dict[str, str] | None) -> dict | None:
    """The history's section for a changed default read by _asked_default (no message form to recognise)."""
    from kb.apidrift.answer import answer
    from kb.diagnose.redact import redact_tree

    try:
        section = answer("default-change", fields, facts or {}, versions)
    except OSError:  # the data file is missing
        return None
    return redact_tree(section) if section is not None else None


def _as_api_drift(knowledge, answer, section: dict):  # noqa: ANN001, ANN202
    """The api-drift family's answer for an error another api_history family's signature matched (model-unsupported's
    "contains custom code which must be executed to correctly load ..." check) when the history dates it as a default
    that the raising library changed: the release changed the call's behaviour, the model or data did not change."""
    family = knowledge.family("api-drift")
    if family is None:
        return answer
    m = answer.match
    evidence = [*m.evidence, f"the API history dates a changed default: `{section['subject']}`, {section['library']} "
                f"{section['removed_in']}; the {m.entry.family} signature's check is that library's own"]
    return _history_prior(family, "history", m.error, m.score, evidence,
                          "the API history records a changed default of the keyword the error asks for", knowledge)


def _titled_by_deprecation(line: str) -> bool:
    """Whether a report's first line states a deprecation warning in its own words or as a title ("FutureWarning:
    `logging_dir` is deprecated ...", "[Bug] FutureWarning: 'use_auth_token' was deprecated ..."), not as Python's
    warnings module prints it into a log ("/x/optimization.py:411: FutureWarning: ..."), which heads a piped log."""
    before, sep, after = line.partition("Warning: ")
    return bool(sep) and "deprecated" in after and ".py:" not in before


def _head_names_warning(head: list[str], warned: list[str]) -> bool:
    """Whether a report's own first lines (not a warning's line) name an identifier its warning names: a title
    "Explicitly set weights_only argument to torch.load()" above torch's FutureWarning about `torch.load` and
    `weights_only` is about that warning, as a title that speaks of a warning is. Only names with an underscore or a
    dot (`weights_only`, `torch.load`): plain words are shared by chance. (review41) Of the warning, only the names it
    quotes: its own prose holds a URL's host and file ("https://github.com/pytorch/pytorch/blob/main/SECURITY.md"),
    which a title naming where its code lives ("My run from github.com/me/proj dies") shares by chance."""
    import re

    def named(text: str) -> set[str]:  # tokens of word characters and dots, split in one linear pass
        return {t.strip(".") for t in re.findall(r"[\w.]+", text)
                if t[:1].isalpha() and ("_" in t or "." in t.strip("."))}

    quoted = r"`([^`\s]{1,200})`|'([^'\s]{1,200})'|\"([^\"\s]{1,200})\""  # `torch.load`, 'token', "x"
    names = {n for message in warned for m in re.finditer(quoted, message)
             for n in named(m.group(1) or m.group(2) or m.group(3))}
    return bool(names) and any(names & named(line) for line in head[:2]
                               if "Warning:" not in line and "warnings.warn(" not in line)


MAX_HISTORY_ERRORS = 3  # errors of a log that no signature answered that the history is asked about
# import forms mostly have signatures, but not a title cut before the module's closing quote ("cannot import name 'x'
# from 'transformers.pytorch_utils") nor a node's name before "module 'torch' has no attribute ...": the history answers
# those when it dates the change; an enum value answers when the history finds the enum and dates the value (a
# report's "... is not a valid OptimizerNames这个错误" that no signature matched)
HISTORY_FORMS = ("object-attribute", "unexpected-kwarg", "not-callable", "enum-value", "positional-count", "value-check",
                 "feature-type", "import-name", "module-attribute", "deprecation")
# facts that say the subject was read from a guess, not named by the error: such a reading does not answer alone
_GUESSED = ("read from the keyword alone", "the error names no callable", "near name", "is not a class the history "
            "covers; its name ends with", "names no class: `", "the one covered class of that name")


# readings from the keyword alone that the report's own naming of the library confirms (see _named_by_report)
_KEYWORD_ALONE = ("the error names no callable", "read from the keyword alone")


def _named_by_report(section: dict, lines: list[str]) -> bool:
    """Whether a reading of a bare keyword ("__init__() got an unexpected keyword argument 'enable_lora'": the covered
    callables whose acceptance of it changed agree, all in one library) is confirmed by the report naming that library
    in its own lines ("peft_model = PeftModel.from_pretrained(...)"). Only for that reading: a class read off its
    name or a near name stays a guess."""
    import re

    facts = section.get("facts") or []
    guessed = [g for g in _GUESSED if any(g in fact for fact in facts)]
    lib = section.get("library") or ""
    if not lib or not guessed or any(g not in _KEYWORD_ALONE for g in guessed):
        return False
    word = re.compile(rf"(?<![A-Za-z])[{lib[0].upper()}{lib[0]}]{re.escape(lib[1:])}(?![a-z])")
    quoted = re.compile(r"['`\"][A-Za-z_][\w.]*['`\"]")  # the keyword itself ('peft_config') names nothing
    return any(word.search(quoted.sub(" ", line[:1000])) for line in lines[:60])


def _sole_changer(section: dict) -> bool:
    """Whether the keyword of a reading from the keyword alone is one that exactly one callable of all the covered
    libraries ever takes, and whose acceptance changed there (`mmap`: torch.load from torch 2.1.0, which passes the
    keywords it does not know on to its unpickler, so an older torch says "__init__() got an unexpected keyword
    argument 'mmap'"): then no other covered callable could have refused it, and the report need not name the library.
    A keyword two callables changed (`debug`, `token`) still needs the report's own naming (the reading may be the
    wrong one), and so does one other callables take: `output_dir`, which TrainingArguments always took and trl's
    PPOConfig from 0.12.0, may have been refused by any class. Only for the reading from the keyword alone
    (_KEYWORD_ALONE): a class read off its name or a near name stays a guess."""
    import re

    facts = section.get("facts") or []
    guessed = [g for g in _GUESSED if any(g in fact for fact in facts)]
    if not guessed or any(g not in _KEYWORD_ALONE for g in guessed):
        return False
    m = re.search(r"\(([A-Za-z_]\w*)=\.\.\.\)$", section.get("subject") or "")
    if m is None:
        return False
    h = _history()
    takers = changed = 0
    for lib in h.libraries():
        for path in h.callables(lib):
            present, accepted = h.param_versions(lib, path, m.group(1))
            if accepted:
                takers += 1
                changed += set(present) != set(accepted)
                if takers > 1:
                    return False
    return takers == 1 and changed == 1


def _history_answer(knowledge, errors: list, versions: dict[str, str] | None,  # noqa: ANN001, ANN202
                    head: list[str] | None = None):
    """An api-drift answer for a log no signature or case matched, when the history itself dates the change its
    error names: a covered class's member, a covered callable's keyword, or a class whose instances became callable
    ('BartConfig' object has no attribute 'static_position_embeddings': added in transformers 2.9.0). Only when the
    section dates a change (added_in or removed_in), the subject was named by the error or its code line (not read
    off a keyword alone), and the installed version, when the log states one, lies on the other side of it. None
    otherwise: the priors then decide as before."""
    family = knowledge.family("api-drift") if hasattr(knowledge, "family") else None
    if family is None:
        return None
    asked = 0
    # a log of warnings alone (nothing raised) whose report speaks of a warning or a deprecation in its own first lines
    # (a title, not the warning's line): a deprecation warning of a covered library is then the report's subject. A
    # report of an error it does not show ("多卡训练报错" above a FutureWarning) is not answered by its warning. A report
    # whose first line states the deprecation warning, not as Python prints it (its title: "FutureWarning: `logging_dir`
    # is deprecated ..."), speaks of that warning; a piped log's first line ("x.py:411: FutureWarning: ...") does not.
    # (err41) A line of the warning's own message is not the report's words either: datasets' FutureWarning goes on,
    # on its next line, "You can remove this warning by passing ..." (ymcui/Chinese-LLaMA-Alpaca#681, a log whose run
    # failed for a reason it does not show).
    warning_lines = {part.strip() for e in errors if e.noise and (e.type or "").endswith("Warning")
                     for part in (e.message or "").splitlines()}
    own = [line for line in (head or []) if line.strip() not in warning_lines]
    warnings_only = all(e.noise and (e.type or "").endswith("Warning") for e in errors if e.type or e.message) \
        and (any(w in line.lower() for line in own if "Warning:" not in line and "warnings.warn(" not in line
                 for w in ("warn", "deprecat"))
             or _head_names_warning(own, [e.message or "" for e in errors if (e.type or "").endswith("Warning")])
             or bool(head) and head[0].strip() not in warning_lines and _titled_by_deprecation(head[0]))
    for error in errors:
        message = error.message or ""
        said = "" if message or error.noise else report_words(error.context, error.type or "")
        if said:  # a traceback cut before its error line: the report's own words for the error, read above it
            message = said
        if not message or error.noise and not (warnings_only and (error.type or "").endswith("Warning")):
            continue
        code = [*error.context, *(f.code for f in error.frames if f.code)]
        message = _closed_from_code(message, code)
        found = recognise(error.type or "", message) or _bare_import(message, [*code, *error.after])
        warned = found is not None and found[0] == "default-change" and (error.type or "").endswith("Warning")
        if found is None or found[0] not in HISTORY_FORMS and "bare" not in found[1] and not said and not warned:
            continue
        asked += 1
        if asked > MAX_HISTORY_ERRORS:
            return None
        stated = VersionScanner().read_lines([*error.context, *message.split("\n"), *error.after])
        section = drift_section(error.type or "", message, stated, versions, code, list(error.after),
                                error.context[-1] if error.context else "", [f.file for f in error.frames])
        if section is None or not (section.get("added_in") or section.get("removed_in")
                                   or section.get("form") == "deprecation" and section.get("renamed_to")):
            continue
        if any(g in fact for fact in section["facts"] for g in _GUESSED) \
                and not _named_by_report(section, [*error.context, *message.split("\n"), *error.after]):
            if not _sole_changer(section):
                continue
            keyword = section["subject"].rsplit("(", 1)[-1].split("=", 1)[0]
            section["facts"].append(f"no other covered callable's acceptance of `{keyword}` changed in any covered "
                                    f"release: the reading stands although the report does not name "
                                    f"{section['library']}")
        if any(f"the installed {section['library']} " in fact and " has it:" in fact for fact in section["facts"]):
            continue  # the installed release has it: not this release's change (a gap's "... has it again" is one)
        evidence = [f"line {error.line_no}: the API history dates `{section['subject']}`: " + _dated(section),
                    "no signature of any case or family matched: the API history's record of the name decided the family",
                    *([f"the traceback stops before its error line; the report's own words above it state the error: "
                       f"`{_quoted(said, 120)}`"] if said else [])]
        return _history_prior(family, "history", error, 0.6, evidence,
                              "the API history records a change of the name the error reports", knowledge, section)
    return None


# torch.load's own words for its weights_only refusal (torch >= 2.6): the message's first line and its last, which a
# report may keep alone above a traceback cut before its error line (a rank's "[rank1]: Check the documentation ...")
_REFUSAL_WORDS = ("Weights only load failed", "to learn more about types accepted by default with weights_only",
                  "we changed the default value of the `weights_only` argument in `torch.load`")
_REFUSAL_CLASS = "UnpicklingError"  # the class torch raises it as (the priors table names its family)


def _refusal_tail(knowledge, errors: list, versions: dict[str, str] | None):  # noqa: ANN001, ANN202
    """The answer for a traceback cut before its error line when a line just above it is torch.load's own wording of
    its weights_only refusal (_REFUSAL_WORDS): the family the priors table gives torch's UnpicklingError, with the
    changed default's section (torch 2.6.0). None otherwise: a line that only speaks of weights_only says nothing."""
    family = _refusal_family(knowledge)
    if family is None:
        return None
    for error in errors:
        if error.message or error.noise:
            continue
        start = next((i for i, line in enumerate(error.context) if any(t in line for t in _TRACEBACK_START)),
                     len(error.context))
        for line in error.context[max(0, start - MAX_PARAPHRASE_LINES):start]:
            if not any(w in line for w in _REFUSAL_WORDS):
                continue
            said = line.split("]: ", 1)[1] if line.lstrip().startswith("[rank") and "]: " in line else line
            section = drift_section("", said.strip(), {}, versions)
            if section is None or not section.get("removed_in") and not section.get("added_in"):
                continue
            evidence = [f"line {error.line_no}: the traceback stops before its error line; the line above it is torch.load's "
                        f"own wording of its weights_only refusal: `{said.strip()[:120]}`",
                        f"the API history dates the changed default: `{section['subject']}`"]
            return _history_prior(family, "error", error, 0.6, evidence,
                                  "torch.load refused to unpickle the file with weights_only=True", knowledge, section)
    return None


def _refusal_family(knowledge):  # noqa: ANN001, ANN202
    """The family the priors table gives torch's UnpicklingError (the class of its weights_only refusal); None when
    no one family has it."""
    rows = (knowledge.tables.get("priors") or {}).get("error", []) if hasattr(knowledge, "tables") else []
    names = {row["family"] for row in rows if _REFUSAL_CLASS in row.get("types", [])}
    return knowledge.family(names.pop()) if len(names) == 1 else None


# The forms an error of a known class can take (recognise's form names): the report's own words read for a traceback
# cut before its error line must state one its class agrees with (a title quoting another class's message is another
# error). A class not listed takes none of them.
CLASS_FORMS = {
    "ImportError": ("import-name", "no-module"),
    "ModuleNotFoundError": ("no-module",),
    "AttributeError": ("module-attribute", "object-attribute"),
    "TypeError": ("unexpected-kwarg", "positional-count", "not-callable"),
    "ValueError": ("enum-value", "value-check", "feature-type", "hfargparser-unused"),
    "RuntimeError": ("verified-change", "removed-stub"),
}
_ANY_CLASS_FORMS = tuple(form for forms in CLASS_FORMS.values() for form in forms)
# Python's own case for the words of the forms, where a title capitalises them ("Cannot import name 'X' from 'y'")
_PYTHON_CASE = (("cannot import name '", "cannot import name '"), ("no module named '", "No module named '"),
                ("has no attribute '", "has no attribute '"), ("got an unexpected keyword argument '",
                "got an unexpected keyword argument '"), ("unexpected keyword argument '", "unexpected keyword argument '"),
                ("object is not callable", "object is not callable"))
_TRACEBACK_START = ("Traceback (most recent call last)", "Traceback (most recent call first)")


def report_words(context: list[str], error_type: str = "") -> str:
    """Python's message for an error whose traceback was cut before its error line (no message; its class, when a
    header such as IPython's "ImportError    Traceback (most recent call last)" gave one, is ``error_type``), as the
    report's own lines just above the traceback state it (a title, a line of prose): the first of at most
    MAX_PARAPHRASE_LINES lines there that holds one of recognise's forms, in Python's case where a title
    capitalised it, and, when the class is known, a form of that class (CLASS_FORMS); "" when none does. Lines
    further above, and a line that only speaks of importing, state nothing."""
    short = error_type.rsplit(".", 1)[-1]
    # no class: any class's form (not a changed default, a model type or rope_scaling: other families' answers)
    agreed = CLASS_FORMS.get(short, ()) if short else _ANY_CLASS_FORMS
    if not agreed:
        return ""
    start = next((i for i, line in enumerate(context) if any(t in line for t in _TRACEBACK_START)), None)
    lines = context[:MAX_PARAPHRASE_LINES] if start is None else context[max(0, start - MAX_PARAPHRASE_LINES):start]
    said = _paraphrased_module(lines)
    if said:
        found = recognise("", said)
        return said if found is not None and found[0] in agreed else ""
    import re

    for line in lines:
        line = _judged_line(line)
        lowered = line.lower()
        for words, python in _PYTHON_CASE:
            if words in lowered:
                line = re.sub(re.escape(words), python, line, flags=re.IGNORECASE)
        if line.lower().startswith("module '"):  # a title's "Module 'x' has no attribute 'y'"
            line = "m" + line[1:]
        found = recognise(short, line) or _bare_import(line, [])
        if found is not None and found[0] in agreed:
            return line
    return ""


def _paraphrased_module(context: list[str]) -> str:
    """Python's "No module named 'a.b'" for a report line above a cut traceback that says it in its own words
    without the quotes ("No module found huggingface_hub.snapshot_download in 0.11.0", a title), when the module
    is dotted (a package's module, not the package missing); likewise "module 'a.b' has no attribute 'x'" for a
    line that quotes a dotted lower-case name without the word "module"; "" when no line does."""
    import re

    for line in context[:MAX_PARAPHRASE_LINES]:
        m = re.search(r"\bNo module (?:named|found)\s+[`'\"]?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)", line)
        if m:
            return f"No module named '{m.group(1)}'"
        # "'torch.nn.functional' has no attribute 'scaled_dot_product_attention'" (a title without "module"):
        # a quoted dotted lower-case name is a module, as Python's "module 'a.b' has no attribute 'x'" says it
        m = re.search(r"(?<![\w.])['`\"]([a-z_]\w*(?:\.[A-Za-z_]\w*)+)['`\"]\s+has no attribute\s+['`\"]([A-Za-z_]\w*)['`\"]",
                      line)
        if m:
            return f"module '{m.group(1)}' has no attribute '{m.group(2)}'"
        # "torch' has no attribute 'frombuffer'" (a post that lost the words "module '" before a covered library's
        # package, mdswyz/DMD#17): the package's name right after a non-word character, its closing quote kept
        m = re.search(r"(?:^|[^\w.'`\"])([a-z_]\w*)'\s+has no attribute\s+'([A-Za-z_]\w*)'", line)
        if m and m.group(1) in _covered_packages():
            return f"module '{m.group(1)}' has no attribute '{m.group(2)}'"
    return ""


def _covered_packages() -> frozenset[str]:
    """The import names of the libraries the API history covers (tables/libraries.toml, role api_history)."""
    from kb.knowledge.tables import libraries as known

    return frozenset(known("api_history"))


MAX_PARAPHRASE_LINES = 3  # a report's title and first lines
MAX_ALSO = 2  # other drift errors of one log told with the top answer (a PR or a thread lists several)


def _quoted(text: str, limit: int) -> str:
    """The user's ``text`` as a fact quotes it: redacted first, then cut at a space (turn 42: a cut of the raw text, then
    redaction, left a token the cut had not reached in the drift section; a token the cut reached would have lost the
    shape its rule knows)."""
    from kb.diagnose.redact import clip, redact

    return clip(redact(text), limit)


def _also(section: dict, answered: str, errors: list, facts: dict, versions: dict[str, str] | None) -> None:
    """The other drift errors of the same log, each in one fact and its first fix: a report that hits two
    changes at once (SFTConfig's max_seq_length, then SFTTrainer's tokenizer) needs both answered, whichever
    the ranking put first. Default changes are left to their own family's answer."""
    seen = {_judged_line(answered), section.get("subject")}
    told = 0
    for error in errors:
        if told >= MAX_ALSO:
            return
        line = _judged_line(error.message or "")
        if not line or line in seen:
            continue
        seen.add(line)
        found = recognise(error.type or "", error.message or "")
        if found is None or found[0] in ("default-change", "no-module") and "." not in found[1].get("module", "."):
            continue
        other = drift_section(error.type or "", error.message or "", facts, versions)
        if other is None or other.get("subject") in seen:
            continue
        seen.add(other.get("subject"))
        change = "; ".join(x for x in (
            f"added in {other['library']} {other['added_in']}" if other.get("added_in") else "",
            f"gone in {other['library']} {other['removed_in']}" if other.get("removed_in") else "",
            f"replaced by {other.get('renamed_to') or other.get('moved_to')}" if other.get("renamed_to") or other.get("moved_to") else "",
        ) if x)
        section["facts"].append(f"this log also shows `{_quoted(line, 120)}`: {other.get('subject')}" + (f": {change}" if change else ""))
        if other["fixes"]:
            section["fixes"].append(f"(for `{other.get('subject')}`) {other['fixes'][0]}")
        told += 1


def _deeper_module(error_type: str, message: str, errors: list) -> str | None:
    """For "No module named 'lib'" (the library itself missing), the message of a later error of the same log
    that misses a module *inside* lib ("No module named 'lib.sub'"): the report went on after installing lib,
    and that second error is the drift. None when there is none."""
    if "No module named '" not in message:
        return None
    found = recognise(error_type, message)
    if found is None or found[0] != "no-module" or "." in found[1]["module"]:
        return None
    lib = found[1]["module"]
    for error in errors:
        other = error.message or ""
        if f"No module named '{lib}." in other:
            again = recognise(error.type or "", other)
            if again is not None and again[0] == "no-module" and again[1]["module"].startswith(lib + "."):
                return other
    return None


def _default_change(error_type: str, message: str) -> bool:
    found = recognise(error_type, message)
    return found is not None and found[0] == "default-change"


def _history():
    """The API history, or None when its data file is missing (a source checkout without it)."""
    from kb.apidrift.history import load_history

    try:
        return load_history()
    except OSError:
        return None


def known_model_type(name: str) -> str | None:
    """The first covered transformers release whose config registry knows ``name``; None when none does
    (or no data file). Called only for a signature that names a ``model_type_capture`` and matched no frame or hint
    (a bare ``KeyError: 'labels'`` asks it). The whole table (~850 model types) is kept in the cache folder, keyed by
    the history file's path, size and mtime (turn 46): reading it is ~0.1 ms, loading the history for it ~50 ms (its
    JSON, and re, pathlib and urllib.parse, which kb/apidrift imports)."""
    table = _model_type_table()
    if table is not None:
        return table.get(name)
    history = _history()
    return None if history is None else history.model_type_first(name)


def known_class(name: str) -> bool | None:
    """Whether a covered release of a tracked library defines ``name`` (a class whose members the history tracks) or
    exports it from the library's top module; None without a history file."""
    history = _history()
    if history is None:
        return None
    if history.find_classes(name):
        return True
    return any(history.export_versions(lib, lib, name) for lib in history.libraries())


def member_changed(lib: str, class_path: str, member: str) -> bool:
    """Whether some covered release of ``lib`` added ``member`` to the tracked class ``class_path`` or removed it (the
    class has it in some covered releases and not in others); False without a history file."""
    history = _history()
    if history is None:
        return False
    tracked, having = history.member_versions(lib, class_path, member)
    return bool(having) and len(having) < len(tracked)


MODEL_TYPES_FORMAT = 1
MODEL_TYPES_MAX_BYTES = 1 << 20  # a cache file far larger than kb writes (~20 KB) is not kb's: not read
_MODEL_TYPES: dict[str, dict[str, str]] = {}  # this process's table, by its cache key


def _model_type_table() -> dict[str, str] | None:
    """The history's model types and each one's first release, from the cache folder (written there from the history
    when missing or stale); None without a cache folder or a history file (then the history answers alone)."""
    import os

    from kb import __version__
    from kb.knowledge.index import _cache_dir, _safe_dir, open_private
    from kb.knowledge.paths import folder
    from kb.knowledge.precompiled import checksum

    path = os.path.join(folder("tables"), "api-history.json.gz")  # kb.knowledge.tables' API_HISTORY (it imports tomllib)
    where = _cache_dir()
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = f"{MODEL_TYPES_FORMAT}|{__version__}|{path}|{st.st_size}|{st.st_mtime_ns}"
    if key in _MODEL_TYPES:
        return _MODEL_TYPES[key]
    if where is None or not _safe_dir(where):
        return None
    import marshal

    cache = os.path.join(where, f"model-types-{checksum(key.encode('utf-8', 'surrogatepass')) & 0xFFFFFFFF:08x}.marshal")
    fd = open_private(cache)  # (this user's, not a link, writable by no one else: the index's rules)
    if fd is not None:
        try:
            with open(fd, "rb") as handle:
                stored = marshal.loads(handle.read()) if os.fstat(fd).st_size <= MODEL_TYPES_MAX_BYTES else None
            table = stored.get("table") if isinstance(stored, dict) and stored.get("key") == key else None
            if isinstance(table, dict) and all(type(k) is str and type(v) is str for k, v in table.items()):
                _MODEL_TYPES[key] = table
                return table
        except (OSError, ValueError, EOFError, TypeError):
            pass
    history = _history()
    if history is None:
        return None
    history.model_type_first("")  # (builds its table)
    table = dict(history._model_type_first or {})
    from kb.knowledge.index_build import write_private

    write_private(cache, marshal.dumps({"key": key, "table": table}))
    _MODEL_TYPES[key] = table
    return table


_FLOORS: dict[int, str | None] = {}  # the model-type table's first release, by the table's id (one table a process)


def model_type_floor() -> str | None:
    """The first release the model-type table records any model type in (transformers 4.10.0: the history reads the
    config registry from there on, though it lists releases from 2.0.0). A type first known there predates the table
    (bert, gpt2, longformer: 64 types), so the table cannot say that an installed transformers is older than it."""
    table = _model_type_table()
    if table is None:
        history = _history()
        if history is None:
            return None
        history.model_type_first("")  # (builds its table)
        table = history._model_type_first or {}
    if id(table) not in _FLOORS:
        _FLOORS[id(table)] = min(table.values(), key=_release_key, default=None)
    return _FLOORS[id(table)]


def _release_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".")[:3] if part.isdigit())


def dated_model_type(name: str) -> str | None:
    """``known_model_type``'s release, when the table can date the type: None for a type no covered release knows and
    for one known since the table's first release (``model_type_floor``). A bare "KeyError: 'longformer'" (a wrapper's
    own table of model types: ThilinaRajapakse/simpletransformers#803) says nothing of the installed transformers'
    age, while "KeyError: 'qwen2'" (first known in 4.37.0) does."""
    first = known_model_type(name)
    return None if first is None or first == model_type_floor() else first


# the API history's kinds of key a priors frame rule's ``cut_key`` names: the check that a name is one a covered release
# knows (tables/priors.toml; kb/knowledge/schema.py lists the same choices)
_KEY_KINDS = {"model_type": known_model_type}


def drifted_param(name: str) -> tuple[str, str] | None:
    """(library, callable) for a keyword whose acceptance changed across the covered releases (see
    History.drifted_param); None otherwise (or no data file)."""
    history = _history()
    return None if history is None else history.drifted_param(name)


# ----------------------------------------------------------------------------- a report in prose (no error line)

_NAME = r"([A-Za-z_][A-Za-z0-9_]{3,80})"
_MODULE = r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)"
# "Fail to import X", "can no longer import X", "cannot import X", "unable to import X", "error importing X"
_PROSE_IMPORT = (r"(?i:\b(?:fail(?:ed|s|ure)?\s+to|can(?:not|'t|\s+not|\s+no\s+longer)|could\s+not|unable\s+to|"
                 r"no\s+longer(?:\s+able\s+to)?|errors?\s+(?:when\s+)?)\s+import(?:ing)?)\s+(?:the\s+)?"
                 r"(?:(?i:function|class|name|method)\s+)?" + _NAME)
# "ImportError for function X", "ImportError when importing X"
_PROSE_IMPORT_ERROR = (r"\bImportError\s+(?i:for|of|on|with|when\s+importing)\s+(?:the\s+)?"
                       r"(?:(?i:function|class|name|method)\s+)?" + _NAME)
# "Import error with X from a.b" (a title quoting Python's words for the import: moment#41)
_PROSE_IMPORT_ERROR_FROM = (r"(?i:\bimport\s?error\s+(?:with|for|of|on|when\s+importing))\s+(?:the\s+)?"
                            r"(?:(?i:function|class|name|method)\s+)?" + _NAME + r"\s+(?i:from)\s+" + _MODULE)
# "The X function cannot be found in a.b.c", "X can't be imported from a.b", "X was removed from transformers",
# "X is missing in a.b", "X not found in a.b", "X does not exist in a.b", "X is no longer available in transformers"
_PROSE_NOT_FOUND = (_NAME + r"\s+(?:(?i:function|class|method|name)\s+)?(?i:(?:cannot|can't|can\s+not|could\s+not)\s+be\s+"
                    r"(?:found|imported)|(?:is\s+|was\s+)?not\s+found|(?:is\s+)?missing|(?:was|has\s+been|is)\s+"
                    r"(?:completely\s+)?(?:removed|deleted|dropped)|does\s+not\s+exist|(?:is\s+)?no\s+longer\s+"
                    r"(?:available|exported|exists?|importable))\s+(?i:in|from)\s+" + _MODULE)
MAX_PROSE_LINES = 3  # the title and the lines under it (LineEvidence's head)
# runpy's and Python 2's words for a missing module, without quotes: "No module named transformers.onnx"
# (any case, as titles copy it: "no module named torch._dynamo."; "not module named" where a report mistyped "No")
_UNQUOTED_NO_MODULE = r"(?i:\bnot? module named) ([a-z_][a-z0-9_]*(?:\.[A-Za-z_]\w*)+)(?![\w'`]|\.\w)"


# a name the module qualifies may be any identifier ("can not import name amp from torch.cuda"): the history, which
# must date it in that module, tells an API name from a word
_QUALIFIED_NAME = r"([A-Za-z_][A-Za-z0-9_]{1,80})"
# "Cannot import Conversation from transformers.pipelines" (MLServer#1955), "QuantizedCacheConfig from transformers
# cannot import" (ComfyUI#10343): the module qualifies the name, so a plain capitalised word is a class there
_PROSE_IMPORT_FROM = (r"(?i:\b(?:fail(?:ed|s|ure)?\s+to|can(?:not|'t|\s+not|\s+no\s+longer)|could\s+not|unable\s+to)"
                      r"\s+import)\s+(?:(?i:named?|function|class|method)\s+)?" + _QUALIFIED_NAME + r"\s+(?i:from)\s+"
                      + _MODULE)
_PROSE_FROM_CANNOT = (_NAME + r"\s+(?i:from)\s+" + _MODULE + r"\s+(?i:(?:cannot|can't|can\s+not|could\s+not|fails?\s+to)"
                      r"\s+(?:be\s+)?import(?:ed)?)\b")


def _api_name(name: str) -> bool:
    """A name an API defines, not a word of prose: snake_case with an underscore, or CamelCase."""
    import re

    return "_" in name.strip("_") or re.search(r"[a-z][A-Z]", name) is not None


def prose_readings(head: list[str]) -> list[dict[str, str]]:
    """{"name", "module", "line"} for each API name a report's first lines say cannot be imported, in prose with no
    error line ("Fail to import `X` since transformers v4.48.0", "The X function cannot be found in a.b.c",
    "ImportError for function X"); "module" is the one the lines name (quoted after "found in", or an import line's
    ``from a.b import X``), "" when they name none. Backticks and quotes around a name are dropped first."""
    import re

    lines = [re.sub(r"[`'\"*]", "", line) for line in head[:MAX_PROSE_LINES]]
    found: list[dict[str, str]] = []
    for index, line in enumerate(lines):
        # the qualified readings last: an API name's reading stays the first pattern's ("Cannot import X from
        # transformers" names no home module for X, found later by the library's exports)
        for pattern in (_PROSE_NOT_FOUND, _PROSE_IMPORT_ERROR_FROM, _PROSE_IMPORT, _PROSE_IMPORT_ERROR,
                        _PROSE_IMPORT_FROM, _PROSE_FROM_CANNOT):
            for m in re.finditer(pattern, line):
                name = m.group(1)
                module = m.group(2).rstrip(".") if m.lastindex and m.lastindex > 1 else ""
                qualified = pattern in (_PROSE_IMPORT_FROM, _PROSE_FROM_CANNOT) and "." in module + "." \
                    and (name[:1].isupper() or pattern is _PROSE_IMPORT_FROM
                         and re.search(r"(?i)\bimport\s+named?\s", m.group(0)) is not None)
                # a class the module names ("Conversation from transformers.pipelines"), or any name Python's own
                # words introduce ("can not import name amp from torch.cuda", "cannot import named X from Y")
                if not (_api_name(name) or qualified) or any(r["name"] == name for r in found):
                    continue
                if not module:  # an import line of the report's: "from a.b import c, X"
                    imported = re.search(r"\bfrom\s+" + _MODULE + r"\s+import\s+[\w\s,()]*?\b" + re.escape(name) + r"\b",
                                         "\n".join(lines))
                    module = imported.group(1) if imported else ""
                found.append({"name": name, "module": module, "line": str(index)})
    return found


_CORRUPT_WORDS = ("invalid load key", "truncated", "magic number", "eof", "corrupt")  # a damaged file, not the default


def _named_refusal(head: list[str]) -> int | None:
    """The index of the line of a report's first lines that names torch's UnpicklingError, when those lines also
    name torch.load and a torch release from 2.6 on ("Issue: UnpicklingError when loading model checkpoint with
    torch.load in PyTorch 2.6", drift-32-PyTorchStepByStep-61) and no damaged file's words: torch.load's
    weights_only default (True from torch 2.6.0). None otherwise."""
    import re

    lines = head[:MAX_PROSE_LINES]
    text = "\n".join(lines)
    if "torch.load" not in text or any(w in text.lower() for w in _CORRUPT_WORDS):
        return None
    said = [tuple(int(p) for p in m.groups()) for m in re.finditer(r"(?i)(?<![\w.])(?:py)?torch\s*(?:==\s*)?v?(\d+)\.(\d+)", text)]
    if not said or any(v < (2, 6) for v in said):
        return None
    return next((i for i, line in enumerate(lines) if _REFUSAL_CLASS in line), None)


def _prose_versions(head: list[str], libraries: list[str]) -> dict[str, str]:
    """{library: version} a report's first lines name ("since transformers v4.48.0", "From Transformers V5")."""
    import re

    said: dict[str, str] = {}
    for line in head[:MAX_PROSE_LINES]:
        for m in re.finditer(r"(?i)(?<![\w.-])(" + "|".join(re.escape(lib) for lib in libraries)
                             + r")\s+v?(\d+(?:\.\d+){0,2})(?![\w.])", line):
            said.setdefault(m.group(1).lower(), m.group(2))
    return said


def _named_libraries(head: list[str], libraries: list[str]) -> list[str]:
    import re

    text = "\n".join(head[:MAX_PROSE_LINES])
    return [lib for lib in libraries if re.search(r"(?i)(?<![\w.-])" + re.escape(lib) + r"(?![\w-])", text)]


def _agrees(section: dict, said: str | None) -> bool:
    """Whether the history's dated change agrees with a version the prose names for it ("since v4.48.0", "V5"): the
    release that removed the name (or, for a name added, none removed) is at or before the one said, compared on the
    parts the prose gives. No version said: nothing to disagree with."""
    if not said:
        return True
    parts = [int(p) for p in said.split(".")]
    changed = section.get("removed_in") or section.get("added_in") or ""
    try:
        release = [int(p) for p in changed.split(".")[:len(parts)]]
    except ValueError:
        return False
    return release <= parts if section.get("removed_in") else True


def prose_answer(knowledge, head: list[str], line_nos: list[int], facts: dict[str, str],  # noqa: ANN001
                 versions: dict[str, str] | None):
    """An api-drift answer for a report with no error line at all whose first lines say in prose that a name cannot
    be imported (prose_readings), when the history dates the change of that name in the module the lines name, or,
    failing one, in the module of a library they name that exported it last. The
    change must agree with a version the lines name for that library, and the installed release (when the report
    states one) must lie on the other side of it. None otherwise."""
    refused = next((i for i, line in enumerate(head[:MAX_PROSE_LINES]) if any(w in line for w in _REFUSAL_WORDS)), None)
    if refused is not None:  # torch.load's own words for its weights_only refusal, pasted without the traceback
        family = _refusal_family(knowledge)
        section = drift_section("", head[refused].strip(), facts, versions) if family is not None else None
        if section is not None and (section.get("removed_in") or section.get("added_in")):
            return _prose_api_drift(knowledge, family, head, line_nos, refused, section,
                                    "the report's line is torch.load's own wording of its weights_only refusal")
    import re

    drift_family = knowledge.family("api-drift") if hasattr(knowledge, "family") else None
    covered = knowledge.libraries("api_history") if hasattr(knowledge, "libraries") \
        and "libraries" in getattr(knowledge, "tables", {}) else ()
    for index, line in enumerate(head[:MAX_PROSE_LINES] if drift_family is not None else []):
        unquoted = re.search(_UNQUOTED_NO_MODULE, line) if " module named " in line.lower() else None
        if unquoted and unquoted.group(1).split(".")[0] in covered:
            # `python -m a.b` (runpy) and Python 2 print the module without quotes: "No module named transformers.onnx"
            section = drift_section("ModuleNotFoundError", f"No module named '{unquoted.group(1)}'", facts, versions)
            if section is not None and (section.get("added_in") or section.get("removed_in")) \
                    and not any(" has it:" in fact and "the installed " in fact for fact in section["facts"]):
                return _prose_api_drift(knowledge, drift_family, head, line_nos, index, section,
                                        "the report's line is Python's own words for a missing module (runpy's, "
                                        "without quotes)")
        if "deprecated" in line:  # a covered library's deprecation message, pasted without its warning's class
            section = drift_section("DeprecationWarning", line.strip(), facts, versions)
            if section is not None and (section.get("removed_in") or section.get("renamed_to")):
                return _prose_api_drift(knowledge, drift_family, head, line_nos, index, section,
                                        "the report's line is a deprecation message a covered library's source states")
    named = _named_refusal(head)
    if named is not None:  # "UnpicklingError when loading ... with torch.load in PyTorch 2.6", no error line
        family = _refusal_family(knowledge)
        section = drift_section("", _REFUSAL_WORDS[0], facts, versions) if family is not None else None
        if section is not None and section.get("removed_in"):
            return _prose_api_drift(knowledge, family, head, line_nos, named, section,
                                    "the report's lines name torch.load's UnpicklingError on a torch release that "
                                    "has the changed default, and hold no error line")
    readings = prose_readings(head)
    if readings and hasattr(knowledge, "libraries") and "libraries" in getattr(knowledge, "tables", {}):
        # only a name in a covered library's module, or with a covered library named, is looked up: the history's
        # file is read for those alone ("model_state_dict is missing in checkpoint_dir" names none)
        covered = knowledge.libraries("api_history")
        named_any = bool(_named_libraries(head, list(covered)))
        readings = [r for r in readings if r["module"].split(".")[0] in covered or not r["module"] and named_any]
    chosen = [i for i, line in enumerate(head[:MAX_PROSE_LINES]) if ": invalid choice: " in line]
    family = knowledge.family("api-drift") if (readings or chosen) and hasattr(knowledge, "family") else None
    h = _history() if family is not None else None
    if h is None:
        return None
    libraries = h.libraries()
    said = _prose_versions(head, libraries)
    named = _named_libraries(head, libraries)
    from kb.apidrift.answer import answer as history_answer
    from kb.diagnose.redact import redact_tree

    for index in chosen:  # argparse's "invalid choice" of an Enum-typed field (recognise), printed with no traceback
        section = drift_section("", head[index].strip(), facts, versions)
        if section is not None and (section.get("added_in") or section.get("removed_in")) \
                and not any(" has it:" in fact and "the installed " in fact for fact in section["facts"]):
            return _prose_api_drift(knowledge, family, head, line_nos, index, section,
                                    "the report's line is argparse's refusal of a value")
    for reading in readings:
        name, module = reading["name"], reading["module"]
        if module and module in libraries and not h.export_versions(module, module, name):
            module = ""  # "X was removed from transformers": the library, not the module X was imported from
        if module:
            candidates = [module] if module.split(".")[0] in libraries else []
        else:
            candidates = []
            for lib in named:
                homes = [m for m in h.exporting_modules(lib, name) if not any(p.startswith("_") for p in m.split("."))]
                # the modules that exported it last (its latest home): a module that once re-exported it by the way
                # (transformers.modeling_albert in 3.x) dates another change than the one the report speaks of
                last = {m: _version_key((h.export_versions(lib, m, name) or ["0"])[-1]) for m in homes}
                latest = max(last.values(), default=[0])
                candidates += [m for m in homes if last[m] == latest][:2]
        for module in candidates:
            try:
                section = history_answer("import-name", {"name": name, "module": module}, facts, versions)
            except OSError:
                return None
            if section is None or not (section.get("added_in") or section.get("removed_in")):
                continue
            lib = section["library"]
            if not _agrees(section, said.get(lib)):
                continue
            if any(f"the installed {lib} " in fact and " has it:" in fact for fact in section["facts"]):
                continue
            return _prose_api_drift(knowledge, family, head, line_nos, int(reading["line"]), redact_tree(section))
    return None


def _version_key(version: str) -> list[int]:
    import re

    return [int(p) for p in re.findall(r"\d+", version)[:4]]


def _prose_api_drift(knowledge, family, head: list[str], line_nos: list[int], index: int, section: dict,  # noqa: ANN001, ANN202
                     said: str = "the report says in prose that it fails, and holds no error line"):
    from kb.diagnose.errors import ParsedError

    line_no = line_nos[index] if index < len(line_nos) else index + 1
    error = ParsedError("", head[index].strip(), line_no=line_no)  # the line as written
    evidence = [f"line {line_no}: `{section['subject']}`: {said}; the API history dates it: {_dated(section)}",
                "no signature of any case or family matched (the report holds no error line): "
                + ("the priors table's family of torch's UnpicklingError" if family is not knowledge.family("api-drift")
                   else "the API history's record of the name decided the family")]
    return _history_prior(family, "history", error, 0.6, evidence,
                          "the API history records a change of the name the report's prose says cannot be imported",
                          knowledge, section)


def _history_prior(family, basis: str, error, score: float, evidence: list[str], why: str,  # noqa: ANN001
                   knowledge, section: dict | None = None):  # noqa: ANN001, ANN202
    """A family's low-confidence answer that the API history decided where no signature matched (the priors stage's
    kind of match, the family's cases as candidates), with the drift section that dated it when given."""
    from kb.diagnose.answers import Answer, Candidate
    from kb.diagnose.priors import PriorMatch

    match = PriorMatch(family, basis, error, score, evidence, "family-prior", why)
    answer = Answer(match, [Candidate(c, None) for c in knowledge.family_cases(family)])  # type: ignore[arg-type]
    if section is not None:
        answer.drift = section
    return answer


def _dated(section: dict) -> str:
    """"added in lib X; gone in lib Y", the parts the section has."""
    return "; ".join(x for x in (f"added in {section['library']} {section['added_in']}" if section.get("added_in") else "",
                                 f"gone in {section['library']} {section['removed_in']}" if section.get("removed_in") else "")
                     if x)
