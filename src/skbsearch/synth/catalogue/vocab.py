"""Vocabulary of the synthetic product catalogue (all invented; no real products).

Every textual property the generator can state about a product is a *feature* (told in
the description) or a review *aspect* (praised or criticised in a review). Each has
disjoint surface forms for product text and for queries, so queries paraphrase rather
than copy; the generator records which product has which property, and qrels are
computed from those records, never from the text.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Feature:
    """A product feature: a title word, description sentences, query adjectives/clauses."""

    title: str
    desc: tuple[str, ...]
    adj: tuple[str, ...]
    rel: tuple[str, ...]


@dataclass(frozen=True)
class Aspect:
    """A review aspect: praising / complaining review sentences, query noun phrases."""

    praise: tuple[str, ...]
    complaint: tuple[str, ...]
    query: tuple[str, ...]


@dataclass(frozen=True)
class Category:
    """A product category with its own nouns, features, aspects, materials and price level."""

    key: str
    title: str
    nouns: tuple[str, ...]
    features: tuple[str, ...]
    aspects: tuple[str, ...]
    materials: tuple[str, ...]
    price: float
    related: tuple[str, ...]


F = Feature
FEATURES: dict[str, Feature] = {
    "waterproof": F("Waterproof", ("Taped seams and a sealed membrane keep heavy rain out.", "Stays bone dry even in a downpour.", "Rated to shrug off sustained rain without leaking."), ("waterproof", "rain-proof"), ("that keeps me dry in the rain", "that won't let water in")),
    "lightweight": F("Ultralight", ("Weighs next to nothing in a pack or bag.", "The featherweight build barely registers on the scale."), ("lightweight", "ultralight"), ("that doesn't weigh much", "that is light to carry")),
    "insulated": F("Insulated", ("A synthetic fill traps body heat on cold mornings.", "Lofty insulation holds warmth when temperatures drop."), ("insulated", "warm"), ("that keeps me warm in winter", "for freezing weather")),
    "breathable": F("Breathable", ("Mesh vents let sweat escape on steep climbs.", "Air flows through the fabric so you never feel clammy."), ("breathable", "well-ventilated"), ("that doesn't get sweaty", "that lets my skin breathe")),
    "packable": F("Packable", ("Stuffs into its own pocket for travel.", "Compresses down to the size of a water bottle."), ("packable", "compressible"), ("that packs down small", "that squashes into a tiny bag")),
    "reflective": F("Hi-Vis", ("Reflective trim makes you visible to cars at night.", "Retro-reflective details catch headlights after dark."), ("reflective", "high-visibility"), ("that drivers can see at night", "that is visible in the dark")),
    "padded": F("Cushioned", ("Generous foam padding cushions every point of contact.", "Plush padding softens each step and every strap."), ("padded", "cushioned"), ("with plenty of cushioning", "that feels soft")),
    "laptop_sleeve": F("Commuter", ("A dedicated sleeve holds a 16-inch notebook computer.", "A suspended compartment protects a notebook computer."), ("laptop-friendly",), ("that fits a laptop", "with room for my laptop")),
    "hydration": F("Hydro", ("A drinking port and bladder sleeve are built in.", "Ready for a drinking reservoir with a tube exit on each side."), ("hydration-compatible",), ("that works with a water bladder", "that can carry a hydration reservoir")),
    "traction": F("Trail", ("Deep lugs on the outsole bite into mud and loose rock.", "A sticky rubber outsole clings to slick stone."), ("grippy", "high-traction"), ("with good traction on slippery ground", "that won't slip on wet rock")),
    "ankle_support": F("Mid", ("A high collar locks the ankle in place on uneven ground.", "A stiff heel cup stabilises the joint on rough terrain."), ("supportive",), ("with good ankle support", "that stops my ankles rolling")),
    "wide_fit": F("Wide", ("Cut with a roomy toe box for broad feet.", "Offered on a generous last that gives toes space to splay."), ("wide-fit",), ("for wide feet", "with a roomy toe box")),
    "freestanding": F("Freestanding", ("Pitches without stakes thanks to a self-supporting pole frame.", "The frame holds its shape on rock and sand alike."), ("freestanding", "self-supporting"), ("that stands up without stakes",)),
    "four_season": F("Expedition", ("Built to handle snow loads and winter gales.", "Steep walls shed snow during alpine storms."), ("four-season", "winter-ready"), ("that can handle snow", "for winter camping")),
    "quick_pitch": F("Instant", ("Goes up in under two minutes with color-coded clips.", "Hub poles spring open so camp is ready in moments."), ("quick-setup", "instant"), ("that is fast to set up", "that pitches in seconds")),
    "down_fill": F("Down", ("Stuffed with responsibly sourced goose plumage.", "High-loft duck plumage gives warmth for its weight."), ("down-filled", "feather-filled"), ("filled with down",)),
    "vacuum": F("Thermal", ("Double-wall vacuum construction holds drinks at temperature.", "A vacuum gap between steel walls stops heat escaping."), ("double-walled", "thermal"), ("that keeps coffee hot", "that keeps drinks cold all day")),
    "leakproof": F("Seal", ("A gasketed lid seals tight so nothing spills in a bag.", "The lid locks shut and survives being tipped upside down."), ("spill-proof", "leak-free"), ("that won't spill in my bag", "that doesn't leak")),
    "dishwasher_safe": F("Easy-Care", ("Goes straight into the dishwasher after use.", "Survives the top rack of the dishwasher without fading."), ("dishwasher-friendly",), ("that I can put in the dishwasher", "that can go through the dishwasher")),
    "microwave_safe": F("Reheat", ("Safe to warm up in the microwave.", "Handles a minute in the microwave without issue."), ("microwavable",), ("that can go in the microwave",)),
    "bpa_free": F("Pure", ("Made without BPA or other questionable plastics.", "Every part touching your drink is free of BPA."), ("non-toxic", "food-safe"), ("without harmful chemicals", "without plastic toxins")),
    "nonstick": F("Slick", ("A slick coating releases eggs without oil.", "Pancakes slide right off the coated surface."), ("non-stick",), ("that food doesn't stick to", "that eggs slide off")),
    "induction": F("Induction", ("Works on induction, gas and electric hobs.", "A magnetic steel base suits every cooktop, induction included."), ("induction-compatible",), ("that works on an induction stove", "for an induction hob")),
    "oven_safe": F("Oven", ("Moves from stovetop to a hot oven up to 260°C.", "Handles a roasting oven as happily as the hob."), ("oven-proof",), ("that can go in the oven", "that I can finish in the oven")),
    "full_tang": F("Forged", ("The blade steel runs the full length of the handle.", "Forged from a single bar of steel, bolster to butt."), ("full-tang", "forged"), ("with a blade that runs through the handle",)),
    "high_carbon": F("Carbon", ("Hardened high-carbon steel holds a keen edge.", "Ice-tempered carbon steel keeps its bite."), ("razor-sharp", "high-carbon"), ("that stays sharp", "that keeps its edge")),
    "noise_cancelling": F("ANC", ("Active noise cancellation silences engine hum and chatter.", "Microphones measure ambient din and cancel it out."), ("noise-cancelling",), ("that blocks out background noise", "that shuts out the world")),
    "wireless": F("Wireless", ("Pairs over Bluetooth with no cables attached.", "Connects to phones and laptops without a cord."), ("cordless", "Bluetooth"), ("without wires", "that doesn't need a cable")),
    "long_battery": F("Endurance", ("A single charge lasts for days of use.", "The large cell runs for dozens of hours between charges."), ("long-lasting",), ("with long battery life", "that rarely needs charging")),
    "foldable": F("Fold", ("Folds flat to slip into a drawer or case.", "Hinged joints collapse it for storage."), ("collapsible", "foldable"), ("that folds up for storage",)),
    "dimmable": F("Dimmable", ("Brightness steps smoothly from a glow to full output.", "A touch strip fades the light up and down."), ("adjustable-brightness",), ("that I can dim", "with adjustable brightness")),
    "usb_port": F("Charge", ("A built-in USB port tops up a phone at the same time.", "A USB-C socket on the base charges your devices."), ("USB-equipped",), ("with a USB charging port", "that can charge my phone")),
    "ergonomic": F("Ergo", ("Contoured to follow the natural curve of the body.", "Shaped by physiotherapists to reduce strain."), ("ergonomic", "posture-friendly"), ("that is good for my posture",)),
    "lumbar": F("Lumbar", ("An adjustable pad props up the lower spine.", "A sliding cushion supports the small of the back."), ("lumbar-supporting",), ("with lower back support", "that supports my lower back")),
    "nonslip": F("Grip", ("A tacky surface keeps hands and feet planted in downward dog.", "The textured top stays put on polished floors."), ("slip-resistant", "non-slip"), ("that doesn't slide around",)),
    "extra_thick": F("Thick", ("Extra-thick foam protects knees on hard floors.", "A generous 8 mm layer softens every pose."), ("thick", "cushy"), ("that is kind to my knees",)),
    "eco": F("Eco", ("Made from natural, recycled and biodegradable materials.", "Produced from reclaimed fibres with a low carbon footprint."), ("eco-friendly", "sustainable"), ("made from recycled materials", "that is good for the planet")),
    "gps": F("GPS", ("Built-in satellite positioning logs routes without a phone.", "Multi-band satellite tracking maps every outing."), ("GPS-enabled",), ("that tracks my runs without a phone", "with built-in GPS")),
    "heart_rate": F("Pulse", ("An optical sensor reads your pulse around the clock.", "Wrist sensors record heartbeat during sleep and training."), ("heart-rate-tracking",), ("that monitors my heart rate", "that tracks my pulse")),
}

A = Aspect
ASPECTS: dict[str, Aspect] = {
    "durability": A(("Still going strong after a year of heavy use.", "Built like a tank; nothing has worn out."), ("Started falling apart within a month.", "Broke after a few outings."), ("durability", "build quality")),
    "value": A(("Worth every penny at this price.", "Feels far more expensive than it was."), ("Overpriced for what you get.", "Not worth the money."), ("value for money", "price-to-quality ratio")),
    "comfort": A(("Comfortable from the first minute, even on long days.", "So comfy I forget it's there."), ("Uncomfortable after an hour or so.", "Pinches and rubs all day."), ("comfort", "all-day comfort")),
    "fit": A(("True to size and fits perfectly.", "The sizing chart was spot on."), ("Runs small; I had to send it back.", "Sizing is way off."), ("fit", "accurate sizing")),
    "warmth": A(("Kept me toasty on a freezing night.", "Cosy even when the frost came in."), ("I shivered all night long.", "Nowhere near as cosy as claimed."), ("warmth", "cosiness")),
    "heat_retention": A(("Coffee is still hot three hours later.", "Keeps tea steaming all morning."), ("Drinks go lukewarm within half an hour.", "My tea cools down fast."), ("heat retention", "ability to keep drinks hot")),
    "easy_clean": A(("Wipes clean in seconds.", "Rinses spotless with a splash of water."), ("Stains are impossible to get out.", "Grime sticks to it forever."), ("easy cleaning", "ease of cleaning")),
    "sound": A(("Crisp highs and deep, punchy bass.", "Music sounds rich and detailed."), ("Sounds tinny at higher volume.", "The bass is muddy and flat."), ("sound quality", "audio")),
    "battery": A(("Battery easily lasts the whole week.", "I only charge it on Sundays."), ("Needs charging every single day.", "The battery dies by lunchtime."), ("battery life", "battery")),
    "setup": A(("Set it up in five minutes without reading the manual.", "Assembly was painless."), ("Assembly instructions were confusing.", "Putting it together took all evening."), ("easy setup", "simple assembly")),
    "sharpness": A(("Glides through tomatoes like butter.", "Slices paper-thin onion with no effort."), ("Dulled after a couple of weeks.", "Crushes tomatoes instead of slicing."), ("sharpness", "cutting performance")),
    "even_heating": A(("Heats evenly with no hot spots.", "Sears steak the same from edge to middle."), ("Burns in the middle while the edges stay cold.", "Has a nasty hot spot."), ("even heating", "heat distribution")),
    "grip": A(("Never slipped once on wet rocks.", "Feet stay planted even when sweaty."), ("Slippery on wet surfaces.", "I skidded twice on the first day."), ("traction", "grip")),
    "capacity": A(("Swallows a whole weekend's worth of gear.", "Room for far more than I expected."), ("Smaller inside than the photos suggest.", "Barely fits the essentials."), ("storage space", "capacity")),
    "stability": A(("Rock solid, no wobble at all.", "Sits firmly on any surface."), ("Wobbles whenever I lean on it.", "Tips over far too easily."), ("stability", "sturdiness")),
    "brightness": A(("Lights up my whole desk without glare.", "Plenty of light for late-night reading."), ("Too dim for reading at night.", "The light is weak and patchy."), ("brightness", "light output")),
    "noise_blocking": A(("The plane engine simply disappears.", "The open office goes completely quiet."), ("Still hear every conversation in the office.", "Traffic noise leaks straight in."), ("noise cancellation", "isolation from noise")),
    "accuracy": A(("Step counts and pace match my phone exactly.", "Readings agree with the chest strap."), ("Heart rate readings jump all over the place.", "Distance is off by a mile."), ("tracking accuracy", "accurate readings")),
    "weather": A(("Stayed dry through a full day of storms.", "Came through a gale without a drop inside."), ("Soaked through in a light drizzle.", "Water seeped in overnight."), ("protection from bad weather", "weather protection")),
    "taste": A(("No plastic flavour at all, even on day one.", "Water tastes clean and fresh."), ("Leaves a weird aftertaste.", "Everything tastes metallic."), ("clean taste", "neutral taste")),
    "portability": A(("Easy to carry from room to room or on trips.", "Tosses into any bag for travel."), ("Too bulky to take anywhere.", "Awkward to lug around."), ("portability", "compact size")),
    "back_support": A(("My lower back pain is gone after a month.", "Long workdays no longer hurt."), ("My back aches after a long workday.", "No support where it matters."), ("back support", "support for my back")),
}

C = Category
CATEGORIES: tuple[Category, ...] = (
    C("hiking-jackets", "Hiking Jacket", ("jacket", "rain jacket", "shell", "outdoor jacket"), ("waterproof", "breathable", "packable", "lightweight", "insulated", "reflective"), ("fit", "weather", "durability", "value"), ("recycled nylon", "ripstop polyester", "a three-layer laminate"), 140.0, ("backpacks", "hiking-boots", "water-bottles")),
    C("backpacks", "Backpack", ("backpack", "daypack", "rucksack", "pack"), ("waterproof", "padded", "laptop_sleeve", "hydration", "lightweight", "reflective"), ("capacity", "comfort", "durability", "value"), ("Cordura nylon", "waxed canvas", "ripstop nylon"), 90.0, ("hiking-jackets", "water-bottles", "hiking-boots")),
    C("hiking-boots", "Hiking Boot", ("hiking boots", "boots", "trail boots"), ("waterproof", "traction", "ankle_support", "wide_fit", "lightweight", "breathable"), ("fit", "grip", "comfort", "durability"), ("full-grain leather", "suede and mesh", "synthetic leather"), 130.0, ("hiking-jackets", "backpacks", "running-shoes")),
    C("tents", "Tent", ("tent", "shelter", "camping tent"), ("freestanding", "four_season", "quick_pitch", "lightweight", "waterproof", "packable"), ("setup", "weather", "capacity", "durability"), ("silnylon", "polyester taffeta", "cotton canvas"), 250.0, ("sleeping-bags", "backpacks")),
    C("sleeping-bags", "Sleeping Bag", ("sleeping bag", "sleeping sack"), ("down_fill", "insulated", "packable", "lightweight", "waterproof"), ("warmth", "comfort", "portability", "value"), ("a nylon shell", "brushed polyester"), 120.0, ("tents", "backpacks")),
    C("mugs", "Coffee Mug", ("mug", "coffee mug", "travel mug", "cup"), ("vacuum", "leakproof", "dishwasher_safe", "microwave_safe", "eco"), ("heat_retention", "easy_clean", "durability", "value"), ("stoneware", "stainless steel", "ceramic", "borosilicate glass"), 22.0, ("water-bottles", "frying-pans")),
    C("water-bottles", "Water Bottle", ("water bottle", "bottle", "flask"), ("vacuum", "leakproof", "bpa_free", "dishwasher_safe", "lightweight", "eco"), ("taste", "heat_retention", "durability", "portability"), ("stainless steel", "Tritan plastic", "aluminium"), 28.0, ("mugs", "backpacks", "yoga-mats")),
    C("chef-knives", "Chef Knife", ("chef's knife", "kitchen knife", "cook's knife"), ("full_tang", "high_carbon", "dishwasher_safe", "ergonomic"), ("sharpness", "comfort", "durability", "value"), ("Damascus steel", "German stainless steel", "VG-10 steel"), 80.0, ("frying-pans",)),
    C("frying-pans", "Frying Pan", ("frying pan", "skillet", "pan"), ("nonstick", "induction", "oven_safe", "dishwasher_safe", "eco"), ("even_heating", "easy_clean", "durability", "value"), ("cast iron", "tri-ply stainless steel", "hard-anodised aluminium"), 55.0, ("chef-knives", "mugs")),
    C("headphones", "Headphones", ("headphones", "over-ear headphones", "headset"), ("noise_cancelling", "wireless", "long_battery", "foldable", "lightweight"), ("sound", "comfort", "battery", "noise_blocking"), ("memory foam and aluminium", "soft protein leather"), 150.0, ("bluetooth-speakers", "smartwatches")),
    C("bluetooth-speakers", "Bluetooth Speaker", ("speaker", "portable speaker", "wireless speaker"), ("waterproof", "long_battery", "lightweight", "usb_port", "eco"), ("sound", "battery", "portability", "durability"), ("woven fabric and rubber", "anodised aluminium"), 70.0, ("headphones",)),
    C("desk-lamps", "Desk Lamp", ("desk lamp", "reading lamp", "table lamp", "task light"), ("dimmable", "usb_port", "foldable", "eco", "wireless"), ("brightness", "setup", "stability", "value"), ("brushed aluminium", "powder-coated steel", "oak and brass"), 45.0, ("office-chairs",)),
    C("office-chairs", "Office Chair", ("office chair", "desk chair", "task chair"), ("ergonomic", "lumbar", "padded", "breathable", "foldable"), ("back_support", "comfort", "setup", "stability"), ("mesh and steel", "bonded leather", "recycled plastic"), 220.0, ("desk-lamps",)),
    C("yoga-mats", "Yoga Mat", ("yoga mat", "exercise mat", "workout mat"), ("nonslip", "extra_thick", "eco", "lightweight", "foldable"), ("grip", "comfort", "easy_clean", "durability"), ("natural rubber", "TPE foam", "cork"), 40.0, ("water-bottles", "running-shoes")),
    C("running-shoes", "Running Shoe", ("running shoes", "runners", "trainers", "sneakers"), ("padded", "breathable", "lightweight", "reflective", "wide_fit", "traction"), ("fit", "comfort", "grip", "durability"), ("engineered knit", "breathable mesh"), 110.0, ("smartwatches", "yoga-mats", "water-bottles")),
    C("smartwatches", "Smartwatch", ("smartwatch", "fitness watch", "sports watch"), ("gps", "heart_rate", "long_battery", "waterproof", "lightweight"), ("accuracy", "battery", "comfort", "value"), ("a titanium case", "an aluminium case and silicone strap"), 200.0, ("running-shoes", "headphones")),
)

COLORS: tuple[str, ...] = (
    "black", "white", "red", "blue", "navy", "green", "olive", "grey",
    "orange", "yellow", "purple", "pink", "brown", "teal",
)

BRAND_PREFIXES: tuple[str, ...] = (
    "North", "Trail", "Summit", "Blue", "Iron", "Silver", "Oak", "River", "Stone", "Bright",
    "Cedar", "Fox", "Urban", "Nova", "Pine", "Aero", "Terra", "Luna", "Echo", "Vivid",
    "Zen", "Bold", "Swift", "Polar", "Alpen", "Coral", "Maple", "Ember", "Frost", "Harbor",
)
BRAND_SUFFIXES: tuple[str, ...] = (
    "peak", "line", "craft", "works", "ware", "gear", "field", "stone", "wood", "mark",
    "forge", "wave", "core", "nest", "haus", "ly", "io", "ora", "tek", "ster",
)
BRAND_TAILS: tuple[str, ...] = ("", " Labs", " & Co", " Outfitters")

MODEL_WORDS: tuple[str, ...] = (
    "Ridgeline", "Voyager", "Nimbus", "Atlas", "Cascade", "Horizon", "Vertex", "Drift",
    "Sierra", "Glacier", "Tempo", "Pulse", "Orbit", "Canyon", "Meridian", "Zephyr",
    "Aurora", "Basalt", "Comet", "Delta", "Fjord", "Granite", "Halo", "Juniper",
    "Kestrel", "Lumen", "Mesa", "Nomad", "Onyx", "Prism", "Quartz", "Ranger",
)
MODEL_SUFFIXES: tuple[str, ...] = ("", " 2", " Pro", " X", " Lite", " Max", " 40", " Plus")
