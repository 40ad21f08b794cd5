"""Learning components as scikit-learn estimators (form critic, page classifier, link learners)."""
