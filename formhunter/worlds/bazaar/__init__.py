"""bazaar: a second simulated web, designed apart from simweb (see ``world`` and
/work/notes/world2.md). Sites in ten languages, database sites of the eight
domains built six ways (widget, deep, catalog, booking, chain, jsapp), hubs that
link them (directories, portals, blogs, news, forums), shops and institutions."""

from formhunter.worlds.bazaar.world import Bazaar

__all__ = ["Bazaar"]
