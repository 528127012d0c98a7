"""Which database errors are outages (retried, 503) and which are not (services.store.engine)."""

from __future__ import annotations

import asyncpg
import pytest
from sqlalchemy import exc
from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg

from services.store.engine import is_outage


def _through_sqlalchemy(error: Exception) -> exc.DBAPIError:
    """`error` as SQLAlchemy's asyncpg dialect hands it on (translated, then wrapped)."""
    dbapi = PGDialect_asyncpg.import_dbapi()
    translate = dbapi._asyncpg_error_translate
    base = next(c for c in type(error).__mro__ if c in translate)
    translated = translate[base](str(error), error)
    return exc.DBAPIError.instance(None, None, translated, dbapi.Error)


@pytest.mark.parametrize("error", [
    asyncpg.exceptions.CannotConnectNowError("the database system is starting up"),
    asyncpg.exceptions.AdminShutdownError("terminating connection due to administrator command"),
    asyncpg.exceptions.CrashShutdownError("the database system is in recovery mode"),
    asyncpg.exceptions.TooManyConnectionsError("sorry, too many clients already"),
    asyncpg.exceptions.ConnectionFailureError("connection failure"),
    # A wrong password: unusable until fixed; one line naming it, never a traceback.
    asyncpg.exceptions.InvalidPasswordError('password authentication failed for user "u"'),
    asyncpg.exceptions.InvalidAuthorizationSpecificationError("no pg_hba.conf entry"),
])
def test_a_server_starting_stopping_or_full_is_an_outage(error: Exception) -> None:
    assert is_outage(error)  # asyncpg's own (the hot path)
    assert is_outage(_through_sqlalchemy(error))  # through the engine (the sink, reads)


@pytest.mark.parametrize("error", [
    asyncpg.exceptions.UniqueViolationError("duplicate key value"),
    asyncpg.exceptions.UndefinedColumnError('column "x" does not exist'),
    asyncpg.exceptions.DataError("invalid input syntax"),
])
def test_statement_errors_are_not_outages(error: Exception) -> None:
    assert not is_outage(error)
    assert not is_outage(_through_sqlalchemy(error))
