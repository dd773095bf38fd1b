"""Priced product texts (phones, bicycles) that the constrained-retrieval and feedback
tests rank."""

from __future__ import annotations

TEXTS = {
    "phone": "The Fairphone 2016 phone sells for $650: battery, camera and photos are fine.",
    "bike": "The Specialized 2015 is $650.",
    "s1": "This smartphone: battery, camera and photos are fine.",
    "s2": "That smartphone: battery, camera and photos are good.",
    "s3": "Another smartphone: battery, camera and photos are great.",
    "b1": "A bicycle with a light frame and good brakes.",
    "b2": "The bicycle frame and wheels held up on trails.",
}
