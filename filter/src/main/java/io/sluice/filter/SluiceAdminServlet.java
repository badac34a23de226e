package io.sluice.filter;

import io.sluice.Sluice;
import io.sluice.Usage;
import io.sluice.internal.Log;
import io.sluice.rule.Durations;
import io.sluice.spi.RequestRefusedException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sluice's operations over HTTP, as JSON: the rules in effect, one key's usage and its reset, and one key's override
 * set and cleared. Registered nowhere by default: the application maps it (such
 * as {@code /admin/sluice/*}) and secures it, with a {@code security-constraint} and a role, or its own
 * authentication in front; anyone who reaches it can lift any limit. Relative to its mapping:
 * <table>
 * <caption>Operations</caption>
 * <tr><th>Method and path</th><th>Parameters</th><th>Answer</th></tr>
 * <tr><td>{@code GET /rules}</td><td></td><td>{@code {"rules":[{"name":..., "rate":..., ...}]}}</td></tr>
 * <tr><td>{@code POST /override}</td><td>{@code rule}, {@code key}, {@code limit} ({@code 7500/1h}, {@code 8} or
 * {@code unlimited}), {@code ttl} ({@code 7d})</td><td>{@code {"rule":..., "limit":..., "ttl":...}}</td></tr>
 * <tr><td>{@code DELETE /override}</td><td>{@code rule}, {@code key}</td><td>{@code {"rule":..., "cleared":true}}</td></tr>
 * <tr><td>{@code GET /usage}</td><td>{@code rule}, {@code key}</td><td>{@code {"rule":..., "rate":{"limit":...,
 * "remaining":..., "resetMillis":...}, "concurrency":{"limit":..., "inFlight":...}, "blockedMillis":...}}</td></tr>
 * <tr><td>{@code POST /reset}</td><td>{@code rule}, {@code key}</td><td>{@code {"rule":..., "reset":true}}</td></tr>
 * </table>
 * Parameters come from the query string or, for {@code POST}, a form body ({@code application/x-www-form-urlencoded}),
 * which keeps key values out of access logs. A bad parameter is a 400 naming it; an unknown path a 404; a method the
 * path does not serve a 405; a backend that fails or does not answer within {@value #BACKEND_WAIT_SECONDS} s a 503.
 * A key value never appears in an answer or a log.
 *
 * <p>Its {@link Sluice} is the one given to the constructor, else the one the application's {@link SluiceFilter}
 * publishes in the servlet context ({@link SluiceFilter#CONTEXT_ATTRIBUTE}), looked up per request: until the filter
 * has started, the servlet answers 503. Thread-safe.
 */
public class SluiceAdminServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final Log LOG = Log.of(SluiceAdminServlet.class);
    /** How long an operation waits for the backend before answering 503. */
    static final long BACKEND_WAIT_SECONDS = 5;
    /** The longest key value accepted (a longer one is not a key any rule resolves to in practice). */
    static final int MAX_KEY_CHARS = 8_192;
    /** The longest rule name, limit or ttl accepted. */
    static final int MAX_VALUE_CHARS = 200;
    static final String RULES = "/rules";
    static final String OVERRIDE = "/override";
    static final String USAGE = "/usage";
    static final String RESET = "/reset";

    /** The engine given in code; null: the filter's, from the servlet context. */
    private final transient Sluice given;

    /** For containers that instantiate the servlet: it uses the engine of the application's {@link SluiceFilter}. */
    public SluiceAdminServlet() {
        this.given = null;
    }

    /**
     * A servlet over an engine of the application's own.
     *
     * @param sluice the engine
     */
    public SluiceAdminServlet(Sluice sluice) {
        this.given = sluice;
    }

    /** A bad request, answered 400 with its message. */
    private static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message, null, false, false);
        }
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String path = Optional.ofNullable(req.getPathInfo()).orElse("");
        String method = req.getMethod();
        try {
            switch (path) {
                case RULES -> {
                    if (!allowed(method, resp, "GET")) return;
                    Sluice s = sluice(resp);
                    if (s != null) write(resp, HttpServletResponse.SC_OK, AdminJson.rules(s.rules()));
                }
                case OVERRIDE -> {
                    if (!allowed(method, resp, "POST", "DELETE")) return;
                    Sluice s = sluice(resp);
                    if (s == null) return;
                    if (method.equals("POST")) override(s, req, resp);
                    else clear(s, req, resp);
                }
                case USAGE -> {
                    if (!allowed(method, resp, "GET")) return;
                    Sluice s = sluice(resp);
                    if (s != null) usage(s, req, resp);
                }
                case RESET -> {
                    if (!allowed(method, resp, "POST")) return;
                    Sluice s = sluice(resp);
                    if (s != null) reset(s, req, resp);
                }
                default -> write(resp, HttpServletResponse.SC_NOT_FOUND, AdminJson.error("no such operation: expected "
                        + RULES + ", " + OVERRIDE + ", " + USAGE + " or " + RESET + " under the servlet's mapping"));
            }
        } catch (BadRequest e) {
            write(resp, HttpServletResponse.SC_BAD_REQUEST, AdminJson.error(e.getMessage()));
        }
    }

    private void override(Sluice s, HttpServletRequest req, HttpServletResponse resp) throws IOException, BadRequest {
        String rule = parameter(req, "rule", MAX_VALUE_CHARS);
        String key = parameter(req, "key", MAX_KEY_CHARS);
        String limit = parameter(req, "limit", MAX_VALUE_CHARS);
        String ttlText = parameter(req, "ttl", MAX_VALUE_CHARS);
        Duration ttl = Durations.parse(ttlText).orElseThrow(() -> new BadRequest("ttl = \"" + ttlText
                + "\": expected a duration such as 7d, 12h or PT30M"));
        CompletionStage<Void> stored;
        try {
            stored = s.override(rule, key, limit, ttl);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        } catch (UnsupportedOperationException e) {
            write(resp, HttpServletResponse.SC_NOT_IMPLEMENTED, AdminJson.error("this engine's backend keeps no overrides"));
            return;
        }
        if (awaited(stored.thenApply(v -> Boolean.TRUE), resp) == null) return;
        write(resp, HttpServletResponse.SC_OK, "{\"rule\":" + AdminJson.string(rule) + ",\"limit\":"
                + AdminJson.string(limit.trim()) + ",\"ttl\":" + AdminJson.string(Durations.format(ttl)) + "}");
    }

    private void clear(Sluice s, HttpServletRequest req, HttpServletResponse resp) throws IOException, BadRequest {
        String rule = parameter(req, "rule", MAX_VALUE_CHARS);
        String key = parameter(req, "key", MAX_KEY_CHARS);
        CompletionStage<Boolean> cleared;
        try {
            cleared = s.clearOverride(rule, key);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        } catch (UnsupportedOperationException e) {
            write(resp, HttpServletResponse.SC_NOT_IMPLEMENTED, AdminJson.error("this engine's backend keeps no overrides"));
            return;
        }
        Boolean had = awaited(cleared, resp);
        if (had == null) return;
        write(resp, HttpServletResponse.SC_OK, "{\"rule\":" + AdminJson.string(rule) + ",\"cleared\":" + had + "}");
    }

    private void usage(Sluice s, HttpServletRequest req, HttpServletResponse resp) throws IOException, BadRequest {
        String rule = parameter(req, "rule", MAX_VALUE_CHARS);
        String key = parameter(req, "key", MAX_KEY_CHARS);
        CompletionStage<Usage> usage;
        try {
            usage = s.usage(rule, key);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        } catch (UnsupportedOperationException e) {
            write(resp, HttpServletResponse.SC_NOT_IMPLEMENTED, AdminJson.error("this engine's backend cannot look keys up"));
            return;
        }
        Usage u = awaited(usage, resp);
        if (u != null) write(resp, HttpServletResponse.SC_OK, AdminJson.usage(u));
    }

    private void reset(Sluice s, HttpServletRequest req, HttpServletResponse resp) throws IOException, BadRequest {
        String rule = parameter(req, "rule", MAX_VALUE_CHARS);
        String key = parameter(req, "key", MAX_KEY_CHARS);
        CompletionStage<Void> reset;
        try {
            reset = s.reset(rule, key);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        } catch (UnsupportedOperationException e) {
            write(resp, HttpServletResponse.SC_NOT_IMPLEMENTED, AdminJson.error("this engine's backend cannot reset keys"));
            return;
        }
        if (awaited(reset.thenApply(v -> Boolean.TRUE), resp) == null) return;
        write(resp, HttpServletResponse.SC_OK, "{\"rule\":" + AdminJson.string(rule) + ",\"reset\":true}");
    }

    /** The stage's value (never null); null once a failure is answered (409 when the backend refused, else 503). */
    private static <T> T awaited(CompletionStage<T> stage, HttpServletResponse resp) throws IOException {
        try {
            return stage.toCompletableFuture().get(BACKEND_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            write(resp, HttpServletResponse.SC_SERVICE_UNAVAILABLE, AdminJson.error("interrupted"));
        } catch (TimeoutException e) {
            write(resp, HttpServletResponse.SC_SERVICE_UNAVAILABLE, AdminJson.error("the backend did not answer in "
                    + BACKEND_WAIT_SECONDS + " s"));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RequestRefusedException refused) {
                write(resp, HttpServletResponse.SC_CONFLICT, AdminJson.error(refused.getMessage()));
            } else {
                LOG.warn("Sluice admin: the backend failed: {}", String.valueOf(e.getCause()));
                write(resp, HttpServletResponse.SC_SERVICE_UNAVAILABLE, AdminJson.error("the backend failed"));
            }
        }
        return null;
    }

    private static String parameter(HttpServletRequest req, String name, int most) throws BadRequest {
        String v = req.getParameter(name);
        if (v == null || v.isEmpty()) {
            throw new BadRequest(name + " = (missing): expected the parameter " + name + " in the query string or a form body");
        }
        if (v.length() > most) throw new BadRequest(name + " = (" + v.length() + " characters): expected at most " + most);
        return v;
    }

    private Sluice sluice(HttpServletResponse resp) throws IOException {
        Sluice s = given;
        if (s == null && getServletContext().getAttribute(SluiceFilter.CONTEXT_ATTRIBUTE) instanceof Sluice published) s = published;
        if (s == null) {
            write(resp, HttpServletResponse.SC_SERVICE_UNAVAILABLE, AdminJson.error("no Sluice engine: the SluiceFilter has "
                    + "not started, and none was given to the servlet"));
        }
        return s;
    }

    private static boolean allowed(String method, HttpServletResponse resp, String... methods) throws IOException {
        for (String m : methods) if (m.equals(method)) return true;
        resp.setHeader("Allow", String.join(", ", methods));
        write(resp, HttpServletResponse.SC_METHOD_NOT_ALLOWED, AdminJson.error("method " + (method.matches("[A-Z]{1,20}")
                ? method : "(not shown)") + ": expected " + String.join(" or ", methods)));
        return false;
    }

    private static void write(HttpServletResponse resp, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setContentType("application/json");
        resp.setCharacterEncoding("UTF-8");
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }
}
