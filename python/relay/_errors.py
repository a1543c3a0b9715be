"""relay.Error: a relay call failed, with relay's status code and explanation."""

#: relay_status_t's names (include/relay/relay.h), by code.
STATUS_NAMES = {
    0: "RELAY_SUCCESS",
    1: "RELAY_ERR_BUFFER",
    2: "RELAY_ERR_COUNT",
    3: "RELAY_ERR_DATATYPE",
    4: "RELAY_ERR_ROOT",
    5: "RELAY_ERR_COMM",
    6: "RELAY_ERR_ALGORITHM",
    7: "RELAY_ERR_POLICY",
    8: "RELAY_ERR_SEGMENT",
    9: "RELAY_ERR_FANOUT",
    10: "RELAY_ERR_WINDOW",
    11: "RELAY_ERR_OPTIONS",
    12: "RELAY_ERR_MISMATCH",
    13: "RELAY_ERR_REQUEST",
    14: "RELAY_ERR_MPI",
    15: "RELAY_ERR_NOMEM",
    16: "RELAY_ERR_INTERNAL",
    17: "RELAY_ERR_ARGUMENT",
    18: "RELAY_ERR_TUNING",
    19: "RELAY_ERR_OP",
    20: "RELAY_ERR_NDUP",
}


class Error(RuntimeError):
    """A relay call failed.

    ``status`` is relay's status code (``relay_status_t``), ``status_name`` its name in the C
    API (``"RELAY_ERR_COUNT"``), and the message says which argument, which value and why.
    Raised on every rank the call fails on: arguments are checked before anything is sent, and
    with ``check="collective"`` (or ``RELAY_CHECK=collective``) the ranks agree, so that a bad
    argument on one rank raises on all of them instead of leaving the others waiting.
    """

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status
        self.status_name = STATUS_NAMES.get(status, f"status {status}")

    def __reduce__(self):  # picklable, as mpi4py's object collectives need
        return (type(self), (str(self), self.status))
