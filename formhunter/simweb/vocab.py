"""Word lists the simulated web is generated from (our own; independent of ``domains/``).

Everything a site says is drawn combinatorially from these lists by a per-site
random generator, so that no two sites of a domain share wording or link patterns.
"""

from __future__ import annotations

DOMAINS = ("airfare", "auto", "book", "hotel", "job", "movie", "music", "rental")

OFFTOPIC = (
    "news", "sport", "health", "software", "recipes", "government", "shopping", "forums",
    "education", "finance", "weather", "realestate", "gaming", "pets", "gardening",
    "science", "fashion", "parenting",
)  # fmt: skip

#: Topic words: nouns used in titles and text. Each topic has its own list.
NOUNS: dict[str, tuple[str, ...]] = {
    "airfare": ("flights", "airline", "fares", "airfare", "plane tickets", "airport", "departure",
                "arrival", "destination", "round-trip", "one-way ticket", "economy class",
                "business class", "layover", "nonstop flight", "boarding pass", "baggage allowance",
                "itinerary", "frequent flyer miles", "cabin", "carrier", "runway", "terminal",
                "connecting flight", "seat upgrade", "low-cost carrier", "aviation"),
    "auto": ("used cars", "new cars", "car dealer", "sedan", "pickup truck", "SUV", "mileage",
             "test drive", "trade-in", "auto loan", "hatchback", "convertible", "horsepower",
             "certified pre-owned", "dealership", "vehicle history", "transmission", "coupe",
             "minivan", "fuel economy", "car financing", "inventory", "odometer", "sticker price"),
    "book": ("books", "paperback", "hardcover", "author", "novel", "bestseller", "bookstore",
             "ISBN", "publisher", "first edition", "fiction", "nonfiction", "biography",
             "bookshelf", "reading list", "literary prize", "chapter", "anthology", "poetry",
             "used books", "rare books", "e-books", "book club", "library catalog"),
    "hotel": ("hotel", "rooms", "suites", "check-in", "check-out", "bed and breakfast", "resort",
              "availability", "nightly rate", "guest rooms", "lodging", "reservation", "inn",
              "room service", "free breakfast", "double room", "spa", "concierge", "motel",
              "accommodation", "guesthouse", "ocean view", "king bed", "late checkout"),
    "job": ("jobs", "careers", "job openings", "employers", "resume", "salary", "hiring",
            "vacancies", "recruiter", "full-time position", "part-time work", "job seekers",
            "interview", "cover letter", "employment", "internship", "job board", "benefits",
            "career fair", "job listings", "staffing agency", "remote work", "contract roles"),
    "movie": ("movies", "films", "DVD", "Blu-ray", "director", "cast", "box office", "trailer",
              "screenplay", "cinema", "film reviews", "actors", "premiere", "sequel", "documentary",
              "movie titles", "showtimes", "film festival", "soundtrack", "classic films",
              "film studio", "widescreen edition", "director's cut"),
    "music": ("music CDs", "albums", "artists", "songs", "tracks", "record label", "vinyl",
              "band", "discography", "singles", "concert", "genre", "jazz", "rock", "hip-hop",
              "classical music", "new releases", "box set", "lyrics", "live album", "remaster",
              "record store", "music charts"),
    "rental": ("car rental", "rental car", "car hire", "pickup location", "drop-off",
               "compact car", "economy car", "full-size car", "one-way rental", "rental rates",
               "unlimited mileage",
               "airport rental", "insurance waiver", "rental counter", "minivan rental",
               "luxury car rental", "weekly rates", "rental agreement", "fuel policy",
               "additional driver", "child seat", "rental fleet"),
    "news": ("headlines", "breaking news", "reporters", "editorial", "politics", "election",
             "world news", "local news", "press conference", "correspondent", "opinion column",
             "investigation", "newsroom", "city council", "parliament", "economy"),
    "sport": ("football", "basketball", "league", "season", "playoffs", "coach", "stadium",
              "championship", "transfer", "scoreboard", "tennis", "athletes", "match report",
              "tournament", "goalkeeper", "marathon"),
    "health": ("symptoms", "treatment", "doctors", "nutrition", "fitness", "clinic", "vaccine",
               "wellness", "diagnosis", "sleep", "blood pressure", "therapy", "mental health",
               "patients", "allergies", "exercise"),
    "software": ("software", "release notes", "open source", "download", "bug fixes", "API",
                 "developers", "framework", "compiler", "database", "plugin", "documentation",
                 "source code", "version control", "linux", "security patch"),
    "recipes": ("recipes", "ingredients", "baking", "dinner ideas", "vegetarian", "dessert",
                "slow cooker", "soup", "pasta", "cookies", "spices", "grilling", "kitchen tips",
                "meal prep", "sauce", "breakfast"),
    "government": ("public services", "permits", "taxes", "city hall", "regulations", "council",
                   "elections office", "public records", "ordinances", "budget", "agencies",
                   "citizens", "department", "public notices", "legislation"),
    "shopping": ("deals", "discounts", "coupons", "electronics", "home appliances", "clothing",
                 "free shipping", "gift ideas", "checkout", "clearance", "furniture", "gadgets",
                 "customer reviews", "warehouse sale", "toys"),
    "forums": ("threads", "members", "discussion", "moderators", "replies", "topics", "forum rules",
               "off-topic chat", "signature", "private messages", "community", "posts",
               "introductions", "hobby projects"),
    "education": ("students", "courses", "campus", "admissions", "faculty", "scholarships",
                  "semester", "tuition", "curriculum", "graduation", "lectures", "research",
                  "alumni", "enrollment"),
    "finance": ("stocks", "investing", "mortgage rates", "retirement", "savings", "interest rates",
                "bonds", "budgeting", "credit cards", "dividends", "market outlook", "inflation",
                "portfolio", "tax returns"),
    "weather": ("forecast", "temperature", "rain", "storm warning", "humidity", "radar",
                "snowfall", "heat wave", "wind speed", "climate", "sunrise", "pollen count"),
    "realestate": ("homes for sale", "apartments", "realtor", "open house", "listings", "condo",
                   "property taxes", "square feet", "neighborhood", "home prices", "landlord",
                   "mortgage"),
    "gaming": ("video games", "consoles", "walkthrough", "multiplayer", "patch notes", "esports",
               "game reviews", "controllers", "speedrun", "indie games", "level design", "RPG"),
    "pets": ("dogs", "cats", "puppies", "veterinarian", "pet food", "adoption", "grooming",
             "aquarium", "training tips", "kittens", "pet insurance", "birds"),
    "gardening": ("garden", "seeds", "tomatoes", "compost", "perennials", "pruning", "soil",
                  "raised beds", "flowers", "lawn care", "greenhouse", "herbs"),
    "science": ("research", "physics", "astronomy", "biology", "experiments", "laboratory",
                "telescope", "genetics", "chemistry", "climate science", "fossils",
                "space mission"),
    "fashion": ("outfits", "designers", "runway", "accessories", "shoes", "trends", "denim",
                "street style", "handbags", "fall collection", "stylist", "vintage clothing"),
    "parenting": ("toddlers", "newborn", "school lunches", "bedtime", "family activities",
                  "parents", "teenagers", "homework help", "baby gear", "playdates", "childcare"),
    "general": ("information", "services", "community", "updates", "resources", "team",
                "history", "partners", "customers", "support", "events", "members"),
}  # fmt: skip

ADJECTIVES = (
    "best", "new", "popular", "affordable", "top", "latest", "great", "local", "trusted", "easy",
    "quick", "cheap", "favorite", "exclusive", "featured", "seasonal", "friendly", "reliable",
    "essential", "complete", "simple", "recommended", "classic", "special", "useful", "modern",
)  # fmt: skip

PLACES = (
    "Boston", "Chicago", "Denver", "Seattle", "Miami", "Atlanta", "Dallas", "Phoenix", "Portland",
    "Austin", "Orlando", "Las Vegas", "San Diego", "New York", "Los Angeles", "Houston", "Toronto",
    "Vancouver", "London", "Paris", "Rome", "Madrid", "Berlin", "Dublin", "Lisbon", "Prague",
    "Vienna", "Amsterdam", "Tokyo", "Sydney", "Honolulu", "Cancun", "Nashville", "Charlotte",
    "Minneapolis", "Detroit", "Tampa", "Baltimore", "Salt Lake City", "Anchorage",
)  # fmt: skip

AIRPORTS = (
    "BOS", "ORD", "DEN", "SEA", "MIA", "ATL", "DFW", "PHX", "PDX", "AUS", "MCO", "LAS", "SAN",
    "JFK", "LAX", "IAH", "YYZ", "YVR", "LHR", "CDG", "FCO", "MAD", "TXL", "DUB", "LIS",
)  # fmt: skip

FIRST_NAMES = (
    "Anna", "James", "Maria", "David", "Sarah", "Michael", "Laura", "Robert", "Emma", "Daniel",
    "Olivia", "Thomas", "Sofia", "Peter", "Grace", "Henry", "Clara", "Samuel", "Ruth", "Victor",
)  # fmt: skip
LAST_NAMES = (
    "Miller", "Garcia", "Chen", "Okafor", "Novak", "Larsen", "Rossi", "Dubois", "Kowalski",
    "Tanaka", "Murphy", "Silva", "Becker", "Haddad", "Ivanova", "Walsh", "Moreau", "Lindqvist",
)  # fmt: skip

TITLE_WORDS = (
    "Silent", "River", "Shadow", "Winter", "Golden", "Last", "Broken", "Midnight", "Distant",
    "Hidden", "Summer", "Iron", "Glass", "Wild", "Lost", "Secret", "Burning", "Northern", "Paper",
    "Crimson", "Quiet", "Electric", "Hollow", "Velvet", "Stone", "Blue", "Empire", "Harbor",
    "Garden", "Storm", "Echo", "Orchard", "Lantern", "Compass",
)  # fmt: skip

CAR_MAKES = (
    "Toyota", "Honda", "Ford", "Chevrolet", "Nissan", "Subaru", "Mazda", "Volkswagen", "BMW",
    "Audi", "Hyundai", "Kia", "Jeep", "Volvo", "Lexus", "Dodge",
)  # fmt: skip
CAR_MODELS = (
    "Civic", "Corolla", "Focus", "Malibu", "Altima", "Outback", "CX-5", "Golf", "3 Series", "A4",
    "Elantra", "Sorento", "Wrangler", "XC60", "RX 350", "Charger", "Accord", "Camry", "F-150",
)  # fmt: skip
CAR_TYPES = ("Economy", "Compact", "Intermediate", "Standard", "Full-size", "Premium", "Luxury",
             "Minivan", "SUV", "Convertible", "Pickup")  # fmt: skip

GENRES = {
    "movie": ("Action", "Comedy", "Drama", "Horror", "Sci-Fi", "Romance", "Thriller",
              "Documentary", "Animation", "Western", "Musical", "Family"),
    "music": ("Rock", "Pop", "Jazz", "Blues", "Classical", "Hip-Hop", "Country", "Electronic",
              "Folk", "Reggae", "Soul", "Metal"),
    "book": ("Fiction", "Mystery", "Science Fiction", "Biography", "History", "Travel", "Children",
             "Cooking", "Poetry", "Business", "Romance", "Self-help"),
    "job": ("Accounting", "Engineering", "Healthcare", "Sales", "Education", "IT / Software",
            "Marketing", "Construction", "Hospitality", "Legal", "Administrative", "Logistics"),
}  # fmt: skip

#: Section titles of topical sites, per domain or topic.
SECTIONS: dict[str, tuple[str, ...]] = {
    "airfare": ("Destinations", "Flight deals", "Airlines", "Travel tips", "Airports",
                "Last minute",
                "Flight status", "Baggage info", "Routes", "Special offers", "Travel news",
                "Holiday ideas", "Weekend getaways"),
    "auto": ("Used cars", "New arrivals", "Trucks", "SUVs", "Financing", "Service center",
             "Car reviews", "Sell your car", "Certified pre-owned", "Specials", "Parts",
             "Buying guides", "Electric cars"),
    "book": ("New releases", "Bestsellers", "Fiction", "Nonfiction", "Children's books",
             "Rare books", "Staff picks", "Author interviews", "Book reviews", "Textbooks",
             "Mystery", "Poetry", "Gift cards"),
    "hotel": ("Rooms", "Suites", "Amenities", "Dining", "Local area", "Special packages", "Gallery",
              "Meetings and events", "Spa", "Guest reviews", "Location", "Weddings", "Offers"),
    "job": ("Browse jobs", "Employers", "Career advice", "Salary guides", "Resume tips",
            "Internships", "Remote jobs", "Job fairs", "Industries", "Companies hiring",
            "Graduate jobs", "Part-time jobs"),
    "movie": ("Now playing", "Coming soon", "Reviews", "Top rated", "Trailers", "Box office",
              "DVD releases", "Classics", "Directors", "Awards", "Film festivals", "Genres",
              "Interviews"),
    "music": ("New releases", "Top albums", "Artists", "Genres", "Vinyl", "Concerts", "Reviews",
              "Box sets", "Charts", "Pre-orders", "Jazz corner", "Indie", "Classical"),
    "rental": ("Locations", "Our fleet", "Airport rentals", "Deals", "One-way rentals",
               "Long-term rentals", "Insurance", "Rental policies", "Business rentals",
               "Van rental", "Luxury cars", "FAQ"),
    "news": ("World", "Politics", "Business", "Local", "Opinion", "Technology", "Culture",
             "Science", "Obituaries", "Photos", "Investigations", "Weather"),
    "sport": ("Football", "Basketball", "Baseball", "Tennis", "Golf", "Results", "Fixtures",
              "Transfers", "Columns", "Olympics", "Cycling"),
    "health": ("Conditions", "Nutrition", "Fitness", "Mental health", "Medications", "Ask a doctor",
               "Healthy living", "Sleep", "Women's health", "Children's health"),
    "software": ("Downloads", "Documentation", "Releases", "Tutorials", "Community", "Blog",
                 "Changelog", "Security", "Plugins", "Roadmap"),
    "recipes": ("Dinner", "Desserts", "Vegetarian", "Quick meals", "Baking", "Soups", "Holiday",
                "Drinks", "Breakfast", "Salads", "Grilling"),
    "government": ("Services", "Departments", "Public notices", "Permits", "Taxes", "Elections",
                   "Council meetings", "Parks", "Public safety", "Budget", "Jobs at city hall"),
    "shopping": ("Electronics", "Home", "Garden", "Toys", "Clothing", "Deals", "Clearance",
                 "Gift ideas", "Kitchen", "Outdoor", "Brands"),
    "forums": ("General discussion", "Introductions", "Help desk", "Projects", "Marketplace",
               "Off-topic", "Announcements", "Tips and tricks", "Showcase"),
    "education": ("Admissions", "Programs", "Campus life", "Research", "Faculty", "Alumni",
                  "Scholarships", "Events", "News", "Library services"),
    "finance": ("Markets", "Investing", "Retirement", "Mortgages", "Banking", "Taxes",
                "Personal finance", "Insurance", "Crypto", "Calculators"),
    "weather": ("Forecast", "Radar", "Severe weather", "Climate", "Maps", "Seasonal outlook",
                "Air quality", "Marine"),
    "realestate": ("Buy", "Rent", "Sell", "New homes", "Neighborhoods", "Market reports",
                   "Agents", "Commercial", "Open houses"),
    "gaming": ("Reviews", "News", "Guides", "Esports", "Hardware", "Indie", "Previews", "Retro"),
    "pets": ("Dogs", "Cats", "Adoption", "Health", "Training", "Nutrition", "Small pets", "Fish"),
    "gardening": ("Vegetables", "Flowers", "Lawn", "Trees", "Tools", "Pests", "Seasonal tasks",
                  "Indoor plants"),
    "science": ("Space", "Physics", "Biology", "Earth", "Chemistry", "Technology", "Health",
                "Archaeology"),
    "fashion": ("Women", "Men", "Shoes", "Accessories", "Trends", "Runway", "Beauty", "Vintage"),
    "parenting": ("Pregnancy", "Babies", "Toddlers", "School", "Teens", "Activities",
                  "Health", "Family travel"),
}  # fmt: skip

#: Stems for host names. Combined pairwise with suffixes, so names are varied.
NAME_STEMS: dict[str, tuple[str, ...]] = {
    "airfare": ("sky", "jet", "wing", "aero", "fly", "cloud", "swift", "horizon", "altitude",
                "condor", "falcon", "tailwind", "compass", "globe"),
    "auto": ("motor", "auto", "wheel", "drive", "road", "garage", "piston", "torque", "cruise",
             "lane", "gear", "highway", "carmax", "dealer"),
    "book": ("book", "page", "novel", "chapter", "ink", "paper", "read", "shelf", "quill",
             "spine", "folio", "verse", "story"),
    "hotel": ("inn", "lodge", "suite", "harbor", "manor", "stay", "rest", "haven", "grand",
              "seaside", "pine", "maple", "plaza", "royal", "palm"),
    "job": ("job", "career", "hire", "work", "talent", "staff", "recruit", "employ", "resume",
            "ladder", "skill"),
    "movie": ("film", "movie", "cine", "reel", "screen", "flick", "matinee", "studio", "scene",
              "popcorn"),
    "music": ("sound", "tune", "record", "vinyl", "melody", "beat", "rhythm", "groove", "disc",
              "note", "chord", "echo"),
    "rental": ("rent", "hire", "drive", "rental", "wheels", "car", "go", "fleet", "ride", "key"),
    "travel": ("travel", "trip", "voyage", "journey", "tour", "getaway", "explore", "wander",
               "holiday", "vacation"),
    "library": ("county", "city", "state", "public", "valley", "river", "lake", "metro", "north",
                "south", "central", "university"),
    "directory": ("web", "link", "net", "site", "guide", "index", "portal", "list", "dir", "hub"),
    "blog": ("notes", "diary", "journal", "thoughts", "ramblings", "musings", "log", "corner",
             "chronicle", "pages"),
    "general": ("blue", "red", "green", "bright", "north", "east", "first", "metro", "prime",
                "true", "open", "clear", "daily", "urban", "global", "smart", "happy", "star"),
}  # fmt: skip
NAME_SUFFIXES = (
    "hub", "world", "zone", "point", "central", "online", "direct", "plus", "base", "spot",
    "place", "now", "net", "hq", "express", "land", "works", "co", "depot", "source", "line",
)  # fmt: skip

#: How a site names its search: verbs x objects, plus whole phrases (per domain).
SEARCH_VERBS = ("Search", "Find", "Look up", "Browse", "Compare", "Discover", "Check", "Explore",
                "Locate", "Get", "Shop", "Scan")  # fmt: skip
SEARCH_OBJECTS: dict[str, tuple[str, ...]] = {
    "airfare": ("flights", "fares", "airfares", "cheap flights", "plane tickets", "air tickets",
                "low fares", "flight deals", "a flight", "routes"),
    "auto": ("cars", "used cars", "vehicles", "our inventory", "new cars", "trucks", "car listings",
             "pre-owned vehicles", "autos", "a car"),
    "book": ("books", "titles", "the catalog", "our shelves", "authors", "used books",
             "bestsellers",
             "rare books", "our stock", "a book"),
    "hotel": ("rooms", "hotels", "availability", "rates", "accommodation", "a room", "hotel deals",
              "suites", "places to stay", "lodging"),
    "job": ("jobs", "openings", "vacancies", "careers", "positions", "job listings", "employers",
            "opportunities", "work", "a job"),
    "movie": ("movies", "films", "titles", "DVDs", "the film database", "cast and crew",
              "showtimes", "Blu-rays", "a movie", "film archive"),
    "music": ("music", "albums", "artists", "CDs", "songs", "records", "our catalog", "vinyl",
              "tracks", "releases"),
    "rental": ("rental cars", "car hire", "rates", "cars", "rental deals", "a car", "vehicles",
               "locations", "rental offers", "our fleet"),
}  # fmt: skip
SEARCH_PHRASES: dict[str, tuple[str, ...]] = {
    "airfare": ("Plan your trip", "Book a flight", "Reservations", "Book now", "Where to fly",
                "Flight finder", "Fare finder", "Book online", "Fly with us", "Trip planner"),
    "auto": ("Shop inventory", "Car finder", "Vehicle search", "Browse inventory", "Shop now",
             "Find your next car", "Inventory", "Search listings", "Shop by make"),
    "book": ("Catalog search", "Book finder", "Advanced search", "Search the shop", "Title search",
             "Find a title", "Browse the catalogue", "Keyword search"),
    "hotel": ("Book now", "Reservations", "Check availability", "Book your stay", "Reserve a room",
              "Rates and availability", "Plan your stay", "Make a reservation", "Booking"),
    "job": ("Job search", "Find work", "Search openings", "Job finder", "Career search",
            "Start your search", "Apply now", "Find your next job"),
    "movie": ("Movie finder", "Title search", "Film search", "Search the database",
              "Browse the archive", "Advanced movie search", "Film finder"),
    "music": ("Music finder", "Album search", "Artist search", "Search the store", "Record finder",
              "Find music", "Browse the catalog"),
    "rental": ("Reserve a car", "Book a car", "Reservations", "Rent now", "Get a quote",
               "Find a rental", "Book your rental", "Car finder", "Start a reservation"),
}  # fmt: skip
#: Words that appear in URL paths of search pages (with domain words below).
SEARCH_URL_WORDS = ("search", "find", "finder", "lookup", "query", "browse", "booking", "book",
                    "reserve", "reservations", "advanced-search", "quick-search", "go")  # fmt: skip
DOMAIN_URL_WORDS: dict[str, tuple[str, ...]] = {
    "airfare": ("flights", "fares", "air", "tickets", "flight", "airfare", "fly", "trip"),
    "auto": ("cars", "inventory", "vehicles", "autos", "used", "stock", "car", "listings"),
    "book": ("books", "catalog", "titles", "shop", "book", "store", "catalogue", "ipac"),
    "hotel": ("rooms", "hotel", "stay", "rates", "availability", "reservations", "lodging"),
    "job": ("jobs", "careers", "openings", "vacancies", "job", "work", "positions"),
    "movie": ("movies", "films", "titles", "dvd", "film", "db", "archive"),
    "music": ("music", "albums", "artists", "cds", "store", "records", "catalog"),
    "rental": ("rental", "cars", "hire", "rent", "fleet", "vehicles", "car-rental"),
}  # fmt: skip
#: Anchors of intermediate pages on the way to a search form.
HOP_PHRASES = ("Plan and book", "Getting started", "Online services", "Customer tools",
               "Shop online", "Our services", "Tools", "Booking center", "Start here",
               "Quick links", "More options", "Get started", "Self service", "Online desk",
               "Resources", "Everything we offer", "How it works")  # fmt: skip
HOP_URL_WORDS = ("services", "tools", "start", "online", "center", "desk", "hub", "portal",
                 "main", "gateway", "plan", "info")  # fmt: skip

STATIC_PAGES = {
    "about": (("About us", "About", "Who we are", "Our story", "Company"),
              ("about", "about-us", "company", "who-we-are", "info/about")),
    "contact": (("Contact", "Contact us", "Get in touch", "Write to us", "Feedback"),
                ("contact", "contact-us", "feedback", "support/contact", "write-us")),
    "login": (("Log in", "Sign in", "Member login", "My account", "Login"),
              ("login", "signin", "account/login", "members/login", "user/login")),
    "register": (("Register", "Sign up", "Create account", "Join now", "Become a member"),
                 ("register", "signup", "join", "account/create", "user/register")),
    "forgot": (("Forgot password?", "Reset password", "Lost your password?", "Password help"),
               ("forgot-password", "password/reset", "lostpassword", "account/recover")),
    "newsletter": (("Newsletter", "Subscribe", "Email updates", "Join our mailing list"),
                   ("newsletter", "subscribe", "mailing-list", "email-signup")),
    "help": (("Help", "FAQ", "Support", "Questions", "Help center"),
             ("help", "faq", "support", "questions", "help-center")),
    "privacy": (("Privacy", "Privacy policy", "Your privacy", "Data protection"),
                ("privacy", "privacy-policy", "legal/privacy", "data-protection")),
    "terms": (("Terms", "Terms of use", "Terms and conditions", "Legal"),
              ("terms", "terms-of-use", "legal/terms", "conditions")),
    "careers": (("Careers", "Work with us", "Jobs at our company", "Join the team"),
                ("careers", "work-with-us", "jobs-with-us", "team/join")),
    "cart": (("Cart", "Shopping cart", "Basket", "My bag"),
             ("cart", "basket", "shop/cart", "bag")),
    "poll": (("Poll", "Vote", "Reader poll", "Survey"),
             ("poll", "vote", "survey", "community/poll")),
    "sitemap": (("Sitemap", "Site map", "All pages", "Site index"),
                ("sitemap", "site-map", "site-index", "all-pages")),
}  # fmt: skip

FOOTER_PHRASES = ("All rights reserved.", "Proudly independent since", "Made with care in",
                  "Serving customers since", "Family owned since", "Est.")  # fmt: skip

#: Sentence templates: {n} noun of the topic, {m} another noun, {a} adjective, {p} place.
SENTENCES = (
    "Our {a} {n} are chosen with care for readers in {p}.",
    "Many visitors ask about {n} and {m} before they decide.",
    "This guide explains {n} in plain words, with tips on {m}.",
    "Compare {n} side by side and read what others say about {m}.",
    "We update our {n} pages every week, including {a} {m}.",
    "In {p}, {n} have become more {a} than ever.",
    "Experts recommend looking at {m} when thinking about {n}.",
    "Here is everything you need to know about {n}.",
    "Readers in {p} shared their stories about {n} and {m}.",
    "The {a} choice for {n} is not always the obvious one.",
    "Find out why {n} matter and how {m} fits in.",
    "Last season, {n} in {p} changed a lot, especially {m}.",
    "Our team collected {a} advice on {n} from people who know {m}.",
    "Whether you are new to {n} or an expert, start with {m}.",
    "A short history of {n}, from the early days to {a} {m}.",
    "Questions about {m}? Our {n} section has the answers.",
    "Top ten {a} ideas for {n} this year.",
    "We spoke with locals in {p} about {n}.",
    "Save time: our checklist covers {n}, {m} and more.",
    "What changed for {n} after the {a} rules on {m}?",
    "Photos from {p}: {n} as you have never seen them.",
    "See our {a} picks of {n} and {m} for the weekend.",
)  # fmt: skip

LOREM_TAIL = ("Read more", "Continue reading", "More", "Details", "Learn more", "Full story",
              "View", "See more", "Open", "Show details")  # fmt: skip
NEXT_WORDS = ("Next", "Next page", "Older", "More", "»", "Next »", "Forward")  # fmt: skip
PREV_WORDS = ("Previous", "Prev", "Newer", "«", "« Back", "Back")  # fmt: skip
