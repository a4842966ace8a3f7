"""The lifecycle: strength (`strength.py`, pure), the tier policy (`policy.py`, pure) and what
applies them to the store (`keeper.py`: recalls, feedback, reactivation, the sweep)."""
