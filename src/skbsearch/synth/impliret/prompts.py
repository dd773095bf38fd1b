"""Prompts for LLM document generation and verification, after IMPLIRET Appendix A.4
(Figures 2-15), condensed. ``{context}`` is the scenario's INPUT as JSON.
"""

from __future__ import annotations

STARTING = {
    "uni": (
        "Generate {n} distinct, natural-sounding first phrases suitable as the opening line of a "
        "conversation between two friends, for example, \"Hey! How's it going?\", \"Anything exciting "
        "happening?\".\nRequirements:\n- No numbering, bullets, or extra text before or after each sentence.\n"
        "- Tone must be friendly, approachable, and universally applicable.\n- Avoid any topic-specific "
        "references.\n- Do not mention purchases, numbers or locations.\nOutput: one phrase per line."
    ),
    "multi": (
        "Generate {n} distinct, natural-sounding first phrases suitable as the opening line of a reply in "
        "an online forum discussion, for example, \"I'm happy to share my thoughts on this.\", \"It's "
        "interesting to consider that.\".\nRequirements:\n- No numbering, bullets, or extra text.\n- Avoid "
        "any topic-specific references.\n- Do not mention purchases, numbers or locations.\nOutput: one "
        "phrase per line."
    ),
}

_FORUM_TAIL = (
    "- You may use the information in user[\"persona\"] to make the response more natural.\n"
    "- Use the 'starting_phrase' as the opening line of the response.\n"
    "- Make sure that you generate grammatically correct sentences.\n"
    "- The answer must be coherent and sound like a real human reply, in exactly five sentences.\n\n"
    "Output Format\nOnly 1 line of response, without any prefix or suffix.\n\nINPUT: {context}"
)
_CHAT_TAIL = (
    "- user_2['name'] must engage naturally but must not mention or comment on {avoid}.\n"
    "- You may use user_1[\"persona\"] and user_2[\"persona\"] to make the dialogue more natural.\n"
    "- Place the complete {what} in exactly one user_1 utterance of your choice; after that line, "
    "either speaker may refer to it only indirectly (\"it\", \"that\") and must never restate it.\n"
    "- Use the 'starting_phrase' as the opening line of the first utterance.\n"
    "- All sentences must be grammatically correct.\n"
    "- The conversation must consist of exactly 10 utterances, each on its own line.\n\n"
    "Output Format\nOnly 10 lines of dialogue separated by newlines. On each line, separate the user "
    "name (user_1['name'] or user_2['name']) and the utterance with a colon.\n\nINPUT: {context}"
)

GENERATE = {
    ("arithmetic", "multi"): (
        "Task\nGenerate a natural response to a forum question.\n\nInput\n- 'topic', 'forum_question', "
        "'user' (name, persona), 'starting_phrase'.\n- 'forum_post': three sentences: the price of one model "
        "of a brand, the price of another model of the same brand relative to the first, and which model "
        "was purchased.\n\nRequirements\n- Answer the 'forum_question' using the information in "
        "'forum_post'.\n- Explicitly mention the brand and the model years.\n- Preserve the numbers "
        "(prices, multipliers, percentages); you may write them as words but never change their values.\n"
        "- Write the relative price naturally (e.g., \"The 2019 model costs two and a half times as much "
        "as the 2016 model.\") and never compute the second price.\n- Only mention the information once.\n"
        + _FORUM_TAIL
    ),
    ("arithmetic", "uni"): (
        "Task\nGenerate a natural conversation between two people (\"user_1\" and \"user_2\") based on a "
        "shopping list.\n\nInput\n- 'user_1', 'user_2' (name, persona), 'shopping_type', 'item_to_buy', "
        "'starting_phrase'.\n- 'bought': three sentences: the price of the item in another brand, the price "
        "in the brand bought relative to the first, and the brand bought.\n\nRequirements\n- user_1 shares "
        "their shopping experience: it was in the 'shopping_type' category and they bought the "
        "'item_to_buy'.\n- Mention the exact 'shopping_type', brands and 'item_to_buy' once.\n- Preserve "
        "all exact numbers and the relative phrasing of the 'bought' sentences; never compute the price "
        "of the item bought.\n- State explicitly that user_1 did not buy from the first brand and did buy "
        "from the second brand.\n"
        + _CHAT_TAIL.replace("{avoid}", "any shopping, locational or numerical information").replace(
            "{what}", "shopping report")
    ),
    ("temporal", "multi"): (
        "Task\nGenerate a natural response to a forum question.\n\nInput\n- 'topic', 'forum_question', "
        "'user' (name, persona), 'starting_phrase'.\n- 'offset_days': when the user did the activity, "
        "relative to the post (e.g., \"3 days ago\").\n\nRequirements\n- Answer the 'forum_question' by "
        "stating that the user was doing the 'topic' activity on the day given in 'offset_days'.\n- Do not "
        "alter 'offset_days' (you may spell out its number) and do not convert it to a calendar date.\n- The "
        "activity happened on a single day; do not mention any other date or day.\n"
        + _FORUM_TAIL
    ),
    ("temporal", "uni"): (
        "Task\nGenerate a natural conversation between two people (\"user_1\" and \"user_2\") based on the "
        "given schedule.\n\nInput\n- 'user_1', 'user_2' (name, persona), 'work', 'starting_phrase'.\n- "
        "'offset_days': when the work is done, relative to the message: single days (\"3 days ago\", "
        "\"yesterday\", \"in 2 days\") or a span (\"starting in 3 days, for 4 consecutive days\").\n- "
        "'hours': (start hour, end hour), 24-hour clock.\n\nRequirements\n- user_1 mentions the 'work' and "
        "every phrase of 'offset_days' verbatim in a single utterance (numbers may be spelled out).\n- Give "
        "the hours once, with the end relative to the start (e.g., \"from 1 p.m. until three hours after "
        "that\", \"from 9 in the morning for three hours\").\n- No other dates, days or numbers anywhere.\n"
        + _CHAT_TAIL.replace("{avoid}", "any schedule, timing or numerical details").replace(
            "{what}", "schedule")
    ),
    ("wknow", "multi"): (
        "Task\nGenerate a natural response to a forum question.\n\nInput\n- 'topic', 'forum_question', "
        "'user' (name, persona), 'starting_phrase'.\n- 'forum_post': the location where the user took part "
        "in the 'topic' activity.\n\nRequirements\n- Answer the 'forum_question' by stating that the user "
        "took part in the 'topic' activity at the 'forum_post' location or at a place right behind or next "
        "to it.\n- Mention the 'forum_post' location name exactly once, exactly as written.\n- Do not "
        "mention any other location, city or country.\n"
        + _FORUM_TAIL
    ),
    ("wknow", "uni"): (
        "Task\nGenerate a natural conversation between two people (\"user_1\" and \"user_2\") based on a "
        "trip.\n\nInput\n- 'user_1', 'user_2' (name, persona), 'trip_destination', 'trip_purpose', "
        "'starting_phrase'.\n\nRequirements\n- user_1 states that they were at the 'trip_destination' for "
        "the 'trip_purpose'.\n- Mention the 'trip_destination' and the 'trip_purpose' exactly once each, "
        "spelled exactly as provided. Do not mention its country or city, or any other location.\n"
        + _CHAT_TAIL.replace("{avoid}", "any trip or locational information").replace("{what}", "trip note")
    ),
}

EXTRACT = {
    "arithmetic": (
        "Task\nIdentify purchased items, their brands and prices in the text below. A price may be stated "
        "in relative terms; then calculate the final price numerically.\n\nOutput Format\nA JSON list of "
        "objects with keys 'item', 'brand', 'model' and 'price' (integer, dollars). If no purchase is "
        "found, return an empty list. No commentary.\n\nINPUT: {context}"
    ),
    "temporal": (
        "Task\nIdentify the work task in the text below and the dates it is done on. Convert relative "
        "expressions (\"tomorrow\", \"3 days ago\") into absolute dates (YYYY-MM-DD) using the message "
        "date as the reference.\n\nOutput Format\nA JSON list of objects with keys 'work' and 'days' (a "
        "list of YYYY-MM-DD dates). If nothing is found, return an empty list. No commentary.\n\nINPUT: "
        "{context}"
    ),
    "wknow": (
        "Task\nIdentify the location that the person was at, and the purpose of the visit.\n\nOutput "
        "Format\nA JSON list of objects with keys 'location' and 'purpose', exact names as written. If no "
        "location is found, return an empty list. No commentary.\n\nINPUT: {context}"
    ),
}
