"""STaRK's LLM prompts for query synthesis (Wu et al., NeurIPS 2024, Appendix E).

Step 2 uses the STaRK-PRIME extraction prompt (generic over node types, with a role
instruction), step 3 the PRIME fusion prompt followed by the second-time rewrite prompt,
and step 4 the STaRK-MAG True/False verification prompt, one call per (candidate,
property). Two additions: the fusion prompt asks to keep the anchor's name verbatim
(STaRK-Amazon's prompt does the same for ``<product>``), and a role instruction for
customers is written from the STaRK-Amazon extraction prompt. Calls go through an
:class:`~skbsearch.llm.LLMClient` (cached, concurrent) in batches with progress.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Sequence

from skbsearch.llm.client import LLMClient, Messages

Progress = Callable[[str, int, int], None]

ROLE_INSTRUCTIONS = {
    "customer": (
        "Customers care about what a product must do and what makes it pleasant to use. Their "
        "questions focus on hard requirements, such as size and functionality, and soft "
        "requirements, such as being easy to use, and only on positive perspectives."
    ),
    "researcher": (
        "Researchers often ask questions that reflect the complexity and depth of scientific "
        "inquiry. Their questions tend to be detailed and specific, focusing on topics, methods, "
        "findings and publication details."
    ),
    "doctor": (
        "Doctors typically ask questions aimed at diagnosing and treating. Their questions tend "
        "to be direct and practical, focusing on aspects involving side effects, symptoms, and "
        "complications etc."
    ),
}
EXAMPLE_QUERIES = {
    "customer": "Can you recommend a lightweight camping chair with a cup holder that matches "
                "my Coleman tent?",
    "researcher": "Which papers by authors from Stanford University study graph neural "
                  "networks for molecule property prediction?",
    "doctor": "Which drugs that target the BRCA1 gene are known to cause liver problems?",
}

EXTRACT = """You are a helpful assistant that helps me extract {n_properties} from a given {target} information that a {role} may be interested in.
{role_instruction}
Each property should be no more than 10 words and start with "the {target}". You should also include the source of each property as indicated in the paragraph names of the information, e.g., {sources}, etc. You should return a list of properties and their sources following the format:
[["<short_property1>", "<source1>"], ["<short_property2>", "<source2>"], ...]
This is the information:
{doc_info}
Please provide only the list with {n_properties} in your response. Response:"""

FUSE = """You are a helpful assistant that helps me generate a natural-sounding and coherent query as if you were a {role}. The query should be created based on a list of requirements for searching {plural_target} in a database. I will provide you with the requirements in the following format:
[<requirement1>, <requirement2>, ...]
You should create the query based solely on the given requirements. Moreover, you should craft the query from the perspective of a {role}.
{role_instruction}
For example, a query from a {role} could be
"{example_query}"
You can be flexible in structuring the query and adding additional context. Ensure that the query uses different descriptions than the original property descriptions while retaining similar meanings. The query should sound concise and natural. Keep the name "{anchor}" exactly as written. These are the requirements:
{requirements}
Please create the query based on the given requirements and provide only the query without additional comments. Your response:"""

REWRITE = """You are a helpful assistant that helps me rewrite a query that searches for {plural_target} from the perspective of a {role}. You should maintain the requirements from the original query and the characteristics of the {role}, while being creative and flexible in structuring the query. Ensure the revised query is concise and natural-sounding. Original query: "{query}". Please output only the rewritten query:"""

VERIFY = """You are a helpful assistant that helps me verify whether a given {target} is subject to a requirement. I will provide you with the {target} information and the requirement, and you should return only a 'True' or 'False' value, indicating whether the {target} meets the requirement.
This is the {target} information:
{doc_info}
This is the requirement:
{requirement}
Please return only the boolean value without additional comments:"""


def _fill(template: str, **values: str) -> Messages:
    text = re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), template)
    return [{"role": "user", "content": text}]


def extract_prompt(role: str, target: str, doc: str, n: int, sources: Sequence[str]) -> Messages:
    """Step 2: the PRIME extraction prompt for ``n`` properties of one document."""
    srcs = ", ".join(f'"{s}"' for s in sources[:3]) or '"description"'
    return _fill(EXTRACT, n_properties=f"{n} propert{'y' if n == 1 else 'ies'}", target=target,
                 role=role, role_instruction=ROLE_INSTRUCTIONS[role], sources=srcs, doc_info=doc)


def fuse_prompt(role: str, plural_target: str, requirements: Sequence[str], anchor: str) -> Messages:
    """Step 3a: the PRIME fusion prompt."""
    return _fill(FUSE, role=role, plural_target=plural_target, role_instruction=ROLE_INSTRUCTIONS[role],
                 example_query=EXAMPLE_QUERIES[role], anchor=anchor,
                 requirements=json.dumps(list(requirements), ensure_ascii=False))


def rewrite_prompt(role: str, plural_target: str, query: str) -> Messages:
    """Step 3b: the second-time rewrite prompt."""
    return _fill(REWRITE, role=role, plural_target=plural_target, query=query)


def verify_prompt(target: str, doc: str, requirement: str) -> Messages:
    """Step 4: the MAG True/False verification prompt."""
    return _fill(VERIFY, target=target, doc_info=doc, requirement=requirement)


def parse_properties(text: str, target: str, n: int) -> list[str]:
    """Properties from an extraction response: a list of ``[property, source]`` pairs, or,
    failing that, lines starting with "the <target>"."""
    items: list[object] = []
    start, end = text.find("["), text.rfind("]")
    if 0 <= start < end:
        blob = text[start: end + 1]
        for parse in (json.loads, ast.literal_eval):
            try:
                got = parse(blob)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            if isinstance(got, list):
                items = got
                break
    props = []
    for it in items:
        s = it[0] if isinstance(it, (list, tuple)) and it else it
        if isinstance(s, str) and s.strip():
            props.append(s.strip())
    if not props:
        pat = re.compile(rf"(the {re.escape(target)}\b[^\n\"\]]*)", re.IGNORECASE)
        props = [m.group(1).strip(" .,") for m in pat.finditer(text)]
    return [" ".join(p.split()[:15]) for p in props[:n]]


def clean_query(text: str) -> str:
    """The query in a fusion/rewrite response: first non-empty paragraph, no quotes or labels."""
    for para in re.split(r"\n\s*\n|\n", text.strip()):
        para = re.sub(r"^(rewritten query|query|response|answer)\s*:\s*", "", para.strip(), flags=re.I)
        para = para.strip().strip('"“”\'').strip()
        if para:
            return para
    return ""


def parse_bool(text: str) -> bool:
    """A True/False (or yes/no) answer; anything else is False."""
    t = text.strip().lower().lstrip("*\"' ")
    if t.startswith(("true", "yes")):
        return True
    if t.startswith(("false", "no")):
        return False
    return "true" in t and "false" not in t


def chat_batches(client: LLMClient, conversations: Sequence[Messages], *, max_tokens: int,
                 stage: str, progress: Progress | None = None, batch: int = 16) -> list[str]:
    """``client.chat`` over ``conversations`` in batches, reporting progress per batch."""
    out: list[str] = []
    total = len(conversations)
    for start in range(0, total, batch):
        out.extend(client.chat(list(conversations[start: start + batch]), max_tokens=max_tokens))
        if progress:
            progress(stage, len(out), total)
    return out
