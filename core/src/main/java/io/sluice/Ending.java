package io.sluice;

import java.util.OptionalInt;

/**
 * How an admitted request ended, which decides whether a rule's {@code count} keeps the permits it took: an HTTP
 * response's status (a failure from 400 up: a wrong password's 401 is a failed login), or a call's normal return
 * (success) or thrown exception (failure), which has no status. Immutable and thread-safe.
 */
public final class Ending {
    /** The lowest status of a failed response: 4xx and 5xx are failures. */
    public static final int FIRST_FAILURE_STATUS = 400;
    private static final Ending RETURNED = new Ending(false, -1);
    private static final Ending THREW = new Ending(true, -1);

    private final boolean failed;
    /** -1 for a call, which has no status. */
    private final int status;

    private Ending(boolean failed, int status) {
        this.failed = failed;
        this.status = status;
    }

    /**
     * A response that ended with {@code status}.
     *
     * @param status the response's final HTTP status
     * @return the ending; a failure when the status is 400 or above
     */
    public static Ending status(int status) {
        if (status < 100 || status > 999) throw new IllegalArgumentException("not an HTTP status: " + status);
        return new Ending(status >= FIRST_FAILURE_STATUS, status);
    }

    /** {@return a call that returned normally (or whose {@code CompletionStage} completed normally)} */
    public static Ending success() {
        return RETURNED;
    }

    /** {@return a call that threw (or whose {@code CompletionStage} completed exceptionally)} */
    public static Ending failure() {
        return THREW;
    }

    /** {@return whether the request failed: a status of 400 or above, or a thrown exception} */
    public boolean failed() {
        return failed;
    }

    /** {@return the response's status; empty for a call} */
    public OptionalInt httpStatus() {
        return status < 0 ? OptionalInt.empty() : OptionalInt.of(status);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Ending e && e.failed == failed && e.status == status;
    }

    @Override
    public int hashCode() {
        return 31 * status + (failed ? 1 : 0);
    }

    @Override
    public String toString() {
        return status >= 0 ? "status " + status : failed ? "failure" : "success";
    }
}
