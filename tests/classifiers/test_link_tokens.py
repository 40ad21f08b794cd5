"""Links as token ids (classifiers.link_tokens): the models score them as they score text."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from classifiers.apprentice import Apprentice
from classifiers.link_classifier import MultiLevelLinkClassifier
from classifiers.link_tokens import DOM_SPACE, LinkTokenizer

ROWS = [
    ("https://www.Books.example/advancedSearch/find-1234.php?q=x", "Advanced search",
     "Find books by ISBN"),
    ("http://shop.example/catalog/browse.html", "Browse the catalogue", "used paperback edition"),
    ("https://münchen.example/suche/Flüge", "Flüge suchen", "günstige Flüge finden"),
    ("https://a.example/2024/06/", "", ""),
    ("https://b.example/x_y-z/Search_Jobs", "½ price ²nd", "a b c 12 34 job-search"),
    ("https://c.example/", None, None),
]  # fmt: skip
DOM = ["search@0 book@-1 find@2", "catalog@0 browse@-7 browse@9", "Flug@0 such@1", "",
       "job@x sear@ch@3 plain", None]  # fmt: skip


def _frame(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    pick = rng.integers(0, len(ROWS), n)
    return pd.DataFrame({
        "url": [ROWS[i][0] + f"/{k}" for k, i in enumerate(pick)],
        "anchor": [ROWS[i][1] for i in pick], "around": [ROWS[i][2] for i in pick],
        "dom_terms": [DOM[i] for i in pick], "parent_score": rng.random(n),
        "depth": rng.integers(0, 5, n),
    })  # fmt: skip


def test_link_classifier_and_apprentice_on_token_ids_equal_their_text_path() -> None:
    train = _frame(600)
    levels = np.array([0, 1, 2, 3, 3, 3])[np.arange(600) % 6]
    model = MultiLevelLinkClassifier(n_levels=3, min_df=1, n_url=8, n_anchor=8,
                                     n_around=8).fit(train, levels)  # fmt: skip
    app = Apprentice(n_features=64, d_max=5).partial_fit(train, (levels < 2).astype(float))
    tok = LinkTokenizer()
    for n in (50, 2500):  # both the small-frame and the columnar text paths
        frame = _frame(n)
        links = tok.tokenize(pa.Table.from_pandas(frame))
        assert links.n == n
        lv_text, sc_text = model.predict_level(frame)
        lv_tok, sc_tok = model.predict_level_tokens(links, model.token_weights(tok.words))
        assert np.array_equal(lv_text, lv_tok)
        assert np.allclose(sc_text, sc_tok, rtol=1e-9, atol=1e-12)
        p_text = app.relevance(frame)
        p_tok = app.relevance_tokens(links, app.token_weights(tok.dom))
        assert np.allclose(p_text, p_tok, rtol=1e-9, atol=1e-12)
        assert len(set(np.round(p_tok, 6).tolist())) > 2
    # the vocabulary grows once per new token; "browse@-7" is kept, beyond d_max it weighs 0
    assert "browse@-7" in tok.dom.index and "sear@ch@3" in tok.dom.index
    w = app.token_weights(tok.dom)
    assert w is not None and w[tok.dom.index["browse@-7"]] == 0.0
    assert "the" not in tok.words.index and "2024" not in tok.words.index  # stop word, digits
    indptr, ids = links.spaces[DOM_SPACE]
    assert len(indptr) == links.n + 1 and indptr[-1] == len(ids)
