package io.sluice.filter;

import io.sluice.Admission;
import io.sluice.Ending;
import io.sluice.rule.Rule;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The response of a request that rules with {@code count} or {@code settle} admitted, as the application sees it:
 * while the response is not committed, every status it sets rewrites the rate-limit headers as that status's ending
 * would leave them (a successful login under {@code count=failure} advertises the permit it gives back), and the
 * headers a rule settles from are kept here (and from the client, unless the rule says {@code ;keep}) until the
 * request ends. Used by one request at a time, as the response is.
 */
final class OutcomeResponse extends HttpServletResponseWrapper {
    private final Admission admission;
    private final ResponseWriter writer;
    /** The settle headers' last values, by lower-case name; a name held back from the client maps to whether it is kept. */
    private final Map<String, String> reported = new TreeMap<>();
    private final Map<String, Boolean> settleHeaders = new TreeMap<>();

    OutcomeResponse(HttpServletResponse response, Admission admission, List<Rule> rules, ResponseWriter writer) {
        super(response);
        this.admission = admission;
        this.writer = writer;
        for (Rule r : rules) {
            r.settle().header().ifPresent(h -> settleHeaders.merge(lower(h), r.settle().keepHeader(), Boolean::logicalAnd));
        }
        writer.headers(admission.headline(Ending.status(response.getStatus())), response);
    }

    /** Whether a rule of {@code rules} needs this response: one counts by outcome or settles from a header. */
    static boolean needed(List<Rule> rules) {
        for (Rule r : rules) if (!r.count().all() || r.settle().fromHeader()) return true;
        return false;
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    /**
     * The last value the application gave the settle header {@code name} through this response, else what the
     * container's response holds (an async request written through the unwrapped response); null when none.
     */
    String reported(String name) {
        String v = reported.get(lower(name));
        return v != null ? v : ((HttpServletResponse) getResponse()).getHeader(name);
    }

    /** The rate headers as the response ends with {@code status}, while they can still change. */
    private void advertise(int status) {
        if (!isCommitted()) writer.headers(admission.headline(Ending.status(status)), (HttpServletResponse) getResponse());
    }

    /** A settle header's value kept here; whether it also goes to the client. */
    private boolean heldBack(String name, String value) {
        Boolean keep = name == null ? null : settleHeaders.get(lower(name));
        if (keep == null) return false;
        reported.put(lower(name), value);
        return !keep;
    }

    @Override
    public void setStatus(int sc) {
        advertise(sc);
        super.setStatus(sc);
    }

    @Override
    public void sendError(int sc, String msg) throws IOException {
        advertise(sc);
        super.sendError(sc, msg);
    }

    @Override
    public void sendError(int sc) throws IOException {
        advertise(sc);
        super.sendError(sc);
    }

    @Override
    public void sendRedirect(String location) throws IOException {
        advertise(HttpServletResponse.SC_FOUND);
        super.sendRedirect(location);
    }

    @Override
    public void setHeader(String name, String value) {
        if (!heldBack(name, value)) super.setHeader(name, value);
    }

    @Override
    public void addHeader(String name, String value) {
        if (!heldBack(name, value)) super.addHeader(name, value);
    }

    @Override
    public void setIntHeader(String name, int value) {
        if (!heldBack(name, Integer.toString(value))) super.setIntHeader(name, value);
    }

    @Override
    public void addIntHeader(String name, int value) {
        if (!heldBack(name, Integer.toString(value))) super.addIntHeader(name, value);
    }

    @Override
    public String getHeader(String name) {
        String held = name == null ? null : reported.get(lower(name));
        return held != null ? held : super.getHeader(name);
    }

    @Override
    public boolean containsHeader(String name) {
        return name != null && reported.containsKey(lower(name)) || super.containsHeader(name);
    }
}
