"""history - the results database across commits (issue 14): schema (schema.py), recording and
import, backfill, change points and the static trend page."""
