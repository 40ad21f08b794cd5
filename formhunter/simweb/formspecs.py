"""Form plans: domain search forms, keyword boxes and non-searchable forms.

A ``FormSpec`` is one form as a site serves it. Its ``signature`` is computed
with ``formhunter.model.form_signature`` from the absolute action, the method
and the (name, type) pairs exactly as an HTML parser sees the rendered form
(input types lower-case; ``select``/``textarea``; buttons and hidden inputs are
dropped by form_signature itself).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from html import escape

from formhunter.model import form_signature
from formhunter.simweb import vocab as vc

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip

#: Lists of options by name.
OPTION_LISTS: dict[str, tuple[str, ...]] = {
    "airports": tuple(f"{p} ({c})" for p, c in zip(vc.PLACES, vc.AIRPORTS, strict=False)),
    "places": vc.PLACES,
    "count9": tuple(str(i) for i in range(1, 10)),
    "count4": ("1", "2", "3", "4"),
    "kids": ("0", "1", "2", "3", "4"),
    "cabin": ("Economy", "Premium economy", "Business", "First"),
    "makes": ("Any make", *vc.CAR_MAKES),
    "models": ("Any model", *vc.CAR_MODELS),
    "years": ("Any year", *(str(y) for y in range(2024, 1994, -1))),
    "prices": ("No max", "$5,000", "$10,000", "$15,000", "$20,000", "$30,000", "$50,000"),
    "bodies": ("Any", "Sedan", "SUV", "Truck", "Coupe", "Wagon", "Van", "Convertible"),
    "miles": ("10 miles", "25 miles", "50 miles", "100 miles", "Nationwide"),
    "bookformat": ("Any format", "Hardcover", "Paperback", "E-book", "Audiobook"),
    "booktype": ("Keyword", "Title", "Author", "Subject", "ISBN", "Series"),
    "bookgenre": ("All subjects", *vc.GENRES["book"]),
    "libloc": ("All locations", "Main library", "Science library", "Law library", "Branches"),
    "libmat": ("Any material", "Books", "E-books", "DVDs", "Journals", "Maps", "Music scores"),
    "jobcat": ("All categories", *vc.GENRES["job"]),
    "salary": ("Any salary", "$30,000+", "$50,000+", "$70,000+", "$90,000+", "$120,000+"),
    "jobtype": ("Full-time", "Part-time", "Contract", "Internship"),
    "moviegenre": ("All genres", *vc.GENRES["movie"]),
    "rating": ("Any rating", "G", "PG", "PG-13", "R", "NC-17"),
    "musicgenre": ("All genres", *vc.GENRES["music"]),
    "musicformat": ("Any format", "CD", "Vinyl", "Cassette", "Download"),
    "cartype": ("Any car type", *vc.CAR_TYPES),
    "times": tuple(f"{h}:00" for h in range(6, 23)),
    "months": _MONTHS,
    "days": tuple(str(d) for d in range(1, 32)),
    "sort": ("Relevance", "Newest", "Price: low to high", "Price: high to low", "Title"),
    "tripradio": ("Round trip", "One way", "Multi-city"),
    "condition": ("New", "Used", "Certified"),
    "yesno": ("Yes", "No"),
}

# A role: (candidate names, candidate labels, kinds). Kind "text" | "date" | "number" |
# "email" | "select:LIST" | "radio:LIST" | "checkbox:LABEL" | "textarea".
Role = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]

DOMAIN_ROLES: dict[str, tuple[tuple[Role, ...], tuple[Role, ...]]] = {
    # (core roles, optional roles)
    "airfare": (
        ((("from", "origin", "dep_city", "orig", "fromCity", "leavingFrom", "depart_from"),
          ("From", "Leaving from", "Departure city", "Origin", "Flying from"),
          ("text", "select:airports")),
         (("to", "destination", "arr_city", "dest", "toCity", "goingTo", "arrive_at"),
          ("To", "Going to", "Destination", "Arrival city", "Flying to"),
          ("text", "select:airports")),
         (("depart", "dep_date", "departDate", "outbound", "date1", "leave_on"),
          ("Depart", "Departure date", "Leaving on", "Outbound"), ("date", "text")),
         (("return", "ret_date", "returnDate", "inbound", "date2", "return_on"),
          ("Return", "Return date", "Coming back", "Inbound"), ("date", "text"))),
        ((("passengers", "adults", "pax", "travelers", "num_adults"),
          ("Passengers", "Adults", "Travelers", "Number of passengers"), ("select:count9",)),
         (("class", "cabin", "cabinClass", "seat_class", "service"),
          ("Class", "Cabin", "Cabin class", "Travel class"), ("select:cabin",)),
         (("tripType", "trip", "way", "journey"), ("Trip type", "Journey"), ("radio:tripradio",)),
         (("children", "kids", "num_children"), ("Children", "Kids (2-11)"), ("select:kids",)),
         (("flexible", "flex_dates", "plusminus"), ("My dates are flexible", "+/- 3 days"),
          ("checkbox:Flexible dates",))),
    ),
    "auto": (
        ((("make", "mk", "manufacturer", "brand", "makeId"),
          ("Make", "Manufacturer", "Brand", "Select make"), ("select:makes",)),
         (("model", "mdl", "modelName", "model_id"), ("Model", "Select model", "Model name"),
          ("select:models", "text")),
         (("year", "yr_min", "yearFrom", "min_year", "modelyear"),
          ("Year", "From year", "Model year", "Min. year"), ("select:years",)),
         (("price", "max_price", "priceTo", "pmax", "budget"),
          ("Max price", "Price up to", "Budget", "Price"), ("select:prices",))),
        ((("zip", "zipcode", "postal", "zip_code", "location"),
          ("ZIP", "Zip code", "Your ZIP", "Postal code", "Near"), ("text",)),
         (("radius", "distance", "within"), ("Within", "Distance", "Search radius"),
          ("select:miles",)),
         (("body", "bodystyle", "body_type", "style"), ("Body style", "Type", "Body type"),
          ("select:bodies",)),
         (("condition", "stock_type", "new_used"), ("Condition", "New or used"),
          ("radio:condition",)),
         (("mileage", "max_miles", "odometer"), ("Max mileage", "Mileage under"), ("number",))),
    ),
    "book": (
        ((("title", "ti", "book_title", "btitle", "q_title"),
          ("Title", "Book title", "Title contains", "Title words"), ("text",)),
         (("author", "au", "book_author", "creator", "q_author"),
          ("Author", "Author name", "Written by", "Author (last, first)"), ("text",))),
        ((("isbn", "isbn13", "q_isbn", "ean"), ("ISBN", "ISBN-10/13", "ISBN / EAN"), ("text",)),
         (("keyword", "kw", "keywords", "anywhere", "all_words"),
          ("Keyword", "Keywords", "Any words", "Search anywhere"), ("text",)),
         (("subject", "su", "category", "topic", "genre"),
          ("Subject", "Category", "Genre", "Topic"), ("select:bookgenre", "text")),
         (("publisher", "pub", "imprint"), ("Publisher", "Imprint"), ("text",)),
         (("format", "binding", "fmt"), ("Format", "Binding"), ("select:bookformat",)),
         (("pubyear", "year", "pub_date"), ("Year published", "Publication year"), ("text",))),
    ),
    "hotel": (
        ((("destination", "city", "where", "location", "dest", "place"),
          ("Destination", "City", "Where are you going?", "Location", "Hotel or city"),
          ("text", "select:places")),
         (("checkin", "check_in", "arrival", "arrive", "date_in", "from_date"),
          ("Check-in", "Arrival", "Check in date", "Arriving"), ("date", "text")),
         (("checkout", "check_out", "departure", "depart", "date_out", "to_date"),
          ("Check-out", "Departure", "Check out date", "Leaving"), ("date", "text"))),
        ((("rooms", "num_rooms", "nrooms", "room_count"), ("Rooms", "Number of rooms"),
          ("select:count4",)),
         (("guests", "adults", "persons", "num_guests", "occupancy"),
          ("Guests", "Adults", "Persons", "Number of guests"), ("select:count9",)),
         (("children", "kids", "child"), ("Children", "Kids"), ("select:kids",)),
         (("promo", "promo_code", "rate_code", "corp_code"),
          ("Promo code", "Rate code", "Corporate code"), ("text",))),
    ),
    "job": (
        ((("keywords", "q", "kw", "what", "job_title", "search_terms"),
          ("Keywords", "What", "Job title or skill", "Job title, keywords or company"), ("text",)),
         (("location", "where", "l", "city", "loc", "region"),
          ("Location", "Where", "City, state or ZIP", "Region"), ("text", "select:places"))),
        ((("category", "cat", "industry", "sector", "field"),
          ("Category", "Industry", "Job category", "Sector"), ("select:jobcat",)),
         (("salary", "min_salary", "pay", "salary_from"), ("Salary", "Minimum salary", "Pay"),
          ("select:salary",)),
         (("jobtype", "type", "employment", "contract"), ("Job type", "Employment type"),
          ("radio:jobtype",)),
         (("posted", "age", "date_posted"), ("Posted within", "Date posted"),
          ("select:days",))),
    ),
    "movie": (
        ((("title", "movie_title", "t", "film", "name"),
          ("Title", "Movie title", "Film title", "Film name"), ("text",)),
         (("genre", "g", "category", "movie_genre"), ("Genre", "Category", "Film genre"),
          ("select:moviegenre",))),
        ((("year", "release_year", "yr", "decade"), ("Year", "Release year", "Year released"),
          ("select:years", "text")),
         (("actor", "cast", "starring", "person"),
          ("Actor", "Cast", "Starring", "Actor or actress"), ("text",)),
         (("director", "dir", "directed_by"), ("Director", "Directed by"), ("text",)),
         (("rating", "mpaa", "certificate"), ("Rating", "MPAA rating", "Certificate"),
          ("select:rating",)),
         (("format", "media", "edition"), ("Format", "Media"), ("radio:bookformat",))),
    ),
    "music": (
        ((("artist", "performer", "band", "ar", "artist_name"),
          ("Artist", "Band / artist", "Performer", "Artist name"), ("text",)),
         (("album", "title", "release", "al", "album_title"),
          ("Album", "Album title", "Release", "Title"), ("text",))),
        ((("song", "track", "tr", "song_title"), ("Song", "Track", "Song title", "Track name"),
          ("text",)),
         (("genre", "style", "g", "music_genre"), ("Genre", "Style", "Music genre"),
          ("select:musicgenre",)),
         (("label", "record_label", "lbl"), ("Label", "Record label"), ("text",)),
         (("format", "media", "fmt"), ("Format", "Media"), ("select:musicformat",))),
    ),
    "rental": (
        ((("pickup", "pickup_location", "pick_up", "pu_loc", "from_location", "rental_location"),
          ("Pick-up location", "Pickup", "Renting from", "Pick up at", "Airport or city"),
          ("text", "select:airports")),
         (("pickup_date", "pu_date", "from_date", "start_date", "date_from"),
          ("Pick-up date", "Pickup date", "From", "Start date"), ("date", "text")),
         (("return_date", "dropoff_date", "do_date", "end_date", "date_to"),
          ("Return date", "Drop-off date", "Until", "End date"), ("date", "text"))),
        ((("dropoff", "return_location", "drop_off", "do_loc"),
          ("Return location", "Drop-off location", "Returning to"), ("text",)),
         (("car_type", "vehicle_class", "class", "carclass", "category"),
          ("Car type", "Vehicle class", "Car class", "Category"), ("select:cartype",)),
         (("pickup_time", "pu_time", "time_from"), ("Pick-up time", "Time"), ("select:times",)),
         (("return_time", "do_time", "time_to"), ("Return time", "Drop-off time"),
          ("select:times",)),
         (("driver_age", "age", "renter_age"), ("Driver age", "Age of driver"),
          ("select:count9",))),
    ),
}  # fmt: skip

KEYWORD_NAMES = ("q", "s", "query", "search", "keywords", "k", "term", "searchterm", "text",
                 "kw", "find", "w")  # fmt: skip

# Non-searchable form roles.
NONSEARCH: dict[str, tuple[Role, ...]] = {
    "login": (
        (("username", "user", "login", "email", "uname", "log"),
         ("Username", "Email", "User name", "Login", "Email address"), ("text", "email")),
        (("password", "pass", "pwd", "passwd"), ("Password",), ("password",)),
        (("remember", "rememberme", "keep"), ("Remember me", "Keep me signed in"),
         ("checkbox:Remember me",)),
    ),
    "register": (
        (("first_name", "fname", "firstname"), ("First name", "Given name"), ("text",)),
        (("last_name", "lname", "lastname", "surname"), ("Last name", "Surname"), ("text",)),
        (("email", "mail", "email_address"), ("Email", "E-mail address"), ("email", "text")),
        (("password", "pass1", "pwd"), ("Password", "Choose a password"), ("password",)),
        (("password2", "pass2", "confirm"), ("Confirm password", "Repeat password"), ("password",)),
        (("terms", "agree", "tos"), ("I agree to the terms",), ("checkbox:I agree",)),
    ),
    "newsletter": (
        (("email", "EMAIL", "subscriber_email", "mail", "nl_email"),
         ("Email", "Your email", "Email address", "Sign up for our newsletter"),
         ("email", "text")),
    ),
    "contact": (
        (("name", "your_name", "fullname", "contact_name"), ("Name", "Your name", "Full name"),
         ("text",)),
        (("email", "your_email", "reply_to"), ("Email", "Your email"), ("email", "text")),
        (("subject", "topic", "regarding"), ("Subject", "Topic", "Regarding"), ("text",)),
        (("message", "comments", "body", "msg"), ("Message", "Your message", "Comments"),
         ("textarea",)),
    ),
    "comment": (
        (("author", "name", "cname"), ("Name", "Your name"), ("text",)),
        (("email", "cemail"), ("Email (not published)", "Email"), ("email", "text")),
        (("url", "website"), ("Website",), ("text",)),
        (("comment", "text", "body"), ("Comment", "Leave a reply", "Your comment"),
         ("textarea",)),
    ),
    "cart": (
        (("qty", "quantity", "amount"), ("Qty", "Quantity"), ("number", "select:count9")),
    ),
    "forgot": (
        (("email", "user_login", "login", "account"), ("Email", "Username or email"),
         ("email", "text")),
    ),
    "poll": (
        (("vote", "answer", "choice", "option"), ("Your vote",), ("radio:yesno",)),
    ),
}  # fmt: skip

NONSEARCH_SUBMIT = {
    "login": ("Log in", "Sign in", "Login", "Go"),
    "register": ("Register", "Create account", "Sign up", "Join"),
    "newsletter": ("Subscribe", "Sign up", "Join", "OK"),
    "contact": ("Send", "Send message", "Submit"),
    "comment": ("Post comment", "Submit comment", "Reply"),
    "cart": ("Add to cart", "Add to basket", "Buy now"),
    "forgot": ("Reset password", "Send link", "Recover"),
    "poll": ("Vote", "Submit vote", "Cast vote"),
}  # fmt: skip


@dataclass(slots=True)
class FieldSpec:
    """One control: ``kind`` is an input type, ``select`` or ``textarea``."""

    name: str
    kind: str
    label: str = ""
    options: tuple[str, ...] = ()
    value: str = ""
    label_style: int = 0  # 0 <label for>, 1 text before, 2 placeholder only, 3 wrapping label

    @property
    def sig_type(self) -> str:
        return self.kind


@dataclass(slots=True)
class FormSpec:
    """One form of a site, with its ground-truth labels."""

    kind: str  # "domain" | "domain_simple" | "site_search" | login | register | ...
    domain: str  # ACHE domain of a domain form, else ""
    relevant_domains: tuple[str, ...]
    searchable: bool
    action_raw: str  # as written in the HTML ("" = no action attribute)
    action: str  # absolute
    method: str  # "GET" | "POST"
    fields: list[FieldSpec]
    submit: str
    hidden: list[tuple[str, str]] = field(default_factory=list)
    js_only: bool = False
    heading: str = ""
    css: str = ""
    signature: str = ""

    def compute_signature(self) -> str:
        self.signature = form_signature(
            self.action, self.method, [(f.name, f.sig_type) for f in self.fields]
        )
        return self.signature


def _pick_role(rng: random.Random, role: Role, used: set[str]) -> FieldSpec:
    names, labels, kinds = role
    name = rng.choice(names)
    if name in used:
        name = f"{name}{len(used)}"
    used.add(name)
    label = rng.choice(labels)
    kind = rng.choice(kinds)
    style = rng.randrange(4)
    if kind.startswith("select:"):
        return FieldSpec(name, "select", label, OPTION_LISTS[kind[7:]], label_style=style % 2)
    if kind.startswith("radio:"):
        opts = OPTION_LISTS[kind[6:]]
        return FieldSpec(name, "radio", label, opts, value=opts[0], label_style=1)
    if kind.startswith("checkbox:"):
        return FieldSpec(name, "checkbox", kind[9:], ("1",), value="1", label_style=3)
    return FieldSpec(name, kind, label, label_style=style)


def domain_form(rng: random.Random, domain: str, advanced: bool) -> tuple[list[FieldSpec], str]:
    """Fields and submit text of a domain search form (advanced = more optional fields)."""
    core, optional = DOMAIN_ROLES[domain]
    used: set[str] = set()
    n_core = len(core) if advanced or len(core) <= 2 else rng.randint(len(core) - 1, len(core))
    fields = [_pick_role(rng, r, used) for r in core[:n_core]]
    k = rng.randint(2, len(optional)) if advanced else rng.randint(0, min(2, len(optional)))
    for r in rng.sample(optional, k):
        fields.append(_pick_role(rng, r, used))
    verb = rng.choice(vc.SEARCH_VERBS)
    submit = rng.choice((verb, f"{verb} {rng.choice(vc.SEARCH_OBJECTS[domain])}", "Go", "Search"))
    return fields, submit


def simple_domain_form(rng: random.Random, domain: str) -> tuple[list[FieldSpec], str]:
    """A single keyword box for the domain (labelled with domain words)."""
    obj = rng.choice(vc.SEARCH_OBJECTS[domain])
    label = rng.choice(
        (f"Search {obj}", f"Find {obj}", f"{obj.capitalize()}:", f"Quick {obj} search")
    )
    fields = [
        FieldSpec(
            rng.choice(KEYWORD_NAMES),
            rng.choice(("text", "search")),
            label,
            label_style=rng.randrange(4),
        )
    ]
    if rng.random() < 0.4:  # a scope select makes it look like the domain
        opts = {
            "book": "booktype",
            "movie": "moviegenre",
            "music": "musicgenre",
            "job": "jobcat",
            "auto": "makes",
        }.get(domain)
        if opts:
            fields.append(
                FieldSpec(
                    rng.choice(("in", "scope", "type", "by")),
                    "select",
                    "in",
                    OPTION_LISTS[opts],
                    label_style=1,
                )
            )
    return fields, rng.choice(("Go", "Search", "Find", "»"))


def keyword_form(rng: random.Random) -> tuple[list[FieldSpec], str]:
    """A generic site-search box."""
    label = rng.choice(("Search", "Search this site", "Site search", "Search:", "Find"))
    fields = [
        FieldSpec(
            rng.choice(KEYWORD_NAMES),
            rng.choice(("text", "search")),
            label,
            label_style=rng.choice((1, 2, 2, 3)),
        )
    ]
    return fields, rng.choice(("Search", "Go", "Find", "OK", "🔍"))


def nonsearch_form(rng: random.Random, kind: str) -> tuple[list[FieldSpec], str]:
    used: set[str] = set()
    roles = NONSEARCH[kind]
    fields = [_pick_role(rng, r, used) for r in roles if r is roles[0] or rng.random() < 0.85]
    if kind == "poll":
        topic = rng.choice(vc.OFFTOPIC)
        fields[0].label = f"Do you follow {rng.choice(vc.NOUNS[topic])}?"
        fields[0].options = rng.choice(
            (("Yes", "No"), ("Every day", "Sometimes", "Never"), ("Agree", "Disagree", "Not sure"))
        )
        fields[0].value = fields[0].options[0]
    return fields, rng.choice(NONSEARCH_SUBMIT[kind])


# ---------------------------------------------------------------- rendering


def _raw_action(f: FormSpec, page_host: str) -> str:
    """The action attribute as written on a page of ``page_host`` (absolute when the
    form submits to another host of the site)."""
    raw = f.action_raw
    if raw.startswith("/") and not f.action.startswith(f"http://{page_host}/"):
        return f.action
    return raw


def render_form(f: FormSpec, fid: str, malformed: bool = False, page_host: str = "") -> str:
    """The form as HTML (for static forms)."""
    out: list[str] = []
    raw = _raw_action(f, page_host) if page_host else f.action_raw
    if f.heading:
        out.append(f"<h3>{escape(f.heading)}</h3>")
    act = f' action="{escape(raw)}"' if raw else ""
    meth = f' method="{f.method.lower()}"' if f.method != "GET" or len(fid) % 2 else ""
    out.append(f'<form{act}{meth} id="{fid}" class="{f.css}">')
    for k, (n, v) in enumerate(f.hidden):
        if k == 0 or not malformed:
            out.append(f'<input type="hidden" name="{n}" value="{escape(v)}">')
    for i, fs in enumerate(f.fields):
        out.append(_render_field(fs, f"{fid}-{i}", malformed))
    out.append(
        f'<input type="submit" value="{escape(f.submit)}">'
        if len(fid) % 3
        else f'<button type="submit">{escape(f.submit)}</button>'
    )
    out.append("</form>")
    return "\n".join(out)


def _render_field(fs: FieldSpec, fid: str, malformed: bool) -> str:
    lab = escape(fs.label)
    q = "" if malformed else '"'
    if fs.kind == "select":
        opts = "".join(
            f"<option>{escape(o)}" if malformed else f"<option>{escape(o)}</option>"
            for o in fs.options
        )
        sel = f"<select name={q}{fs.name}{q} id={q}{fid}{q}>{opts}</select>"
        if fs.label_style == 0:
            return f'<label for="{fid}">{lab}</label> {sel}<br>'
        return f"<span>{lab}</span> {sel}<br>"
    if fs.kind == "textarea":
        area = f'<textarea name="{fs.name}" id="{fid}" rows="5"></textarea>'
        return f'<label for="{fid}">{lab}</label><br>{area}<br>'
    if fs.kind == "radio":
        parts = [f"<fieldset><legend>{lab}</legend>"]
        for j, o in enumerate(fs.options):
            chk = " checked" if j == 0 else ""
            inp = f'<input type="radio" name="{fs.name}" value="{escape(o)}"{chk}>'
            parts.append(f"<label>{inp} {escape(o)}</label>")
        parts.append("</fieldset>")
        return "".join(parts)
    if fs.kind == "checkbox":
        return f'<label><input type="checkbox" name="{fs.name}" value="1"> {lab}</label><br>'
    inp = f"<input type={q}{fs.kind}{q} name={q}{fs.name}{q} id={q}{fid}{q}"
    if fs.label_style == 0:
        return f'<label for="{fid}">{lab}</label> {inp}><br>'
    if fs.label_style == 1:
        return f"{lab} {inp}><br>"
    if fs.label_style == 2:
        return f'{inp} placeholder="{lab}">'
    return f"<label>{lab} {inp}></label><br>"


def render_js_form(f: FormSpec, container: str, page_host: str = "") -> str:
    """An empty container plus a script that builds the form with document.createElement."""
    import json

    spec = {
        "action": (_raw_action(f, page_host) if page_host else f.action_raw) or f.action,
        "method": f.method.lower(),
        "fields": [[fs.name, fs.kind, fs.label, list(fs.options)] for fs in f.fields],
        "hidden": f.hidden,
        "submit": f.submit,
    }
    data = json.dumps(spec).replace("</", "<\\/")
    return (
        f'<div id="{container}"></div>\n<script>\n(function(){{var s={data};'
        f"var c=document.getElementById('{container}');var f=document.createElement('form');"
        "f.setAttribute('action',s.action);f.setAttribute('method',s.method);"
        "s.hidden.forEach(function(h){var i=document.createElement('input');i.type='hidden';"
        "i.name=h[0];i.value=h[1];f.appendChild(i);});"
        "s.fields.forEach(function(d){var l=document.createElement('label');l.textContent=d[2]+' ';"
        "var e;if(d[1]==='select'){e=document.createElement('select');d[3].forEach(function(o){"
        "var op=document.createElement('option');op.textContent=o;e.appendChild(op);});}"
        "else if(d[1]==='textarea'){e=document.createElement('textarea');}"
        "else{e=document.createElement('input');e.type=d[1];if(d[1]==='radio'||d[1]==='checkbox')"
        "{e.value=d[3][0]||'1';}}e.name=d[0];l.appendChild(e);f.appendChild(l);});"
        "var b=document.createElement('input');b.type='submit';b.value=s.submit;f.appendChild(b);"
        "c.appendChild(f);})();\n</script>"
    )
