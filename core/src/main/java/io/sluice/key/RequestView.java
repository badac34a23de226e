package io.sluice.key;

import java.util.List;

/**
 * What key resolution may read of a request. The filter adapts an {@code HttpServletRequest}; the CDI
 * interceptor adapts the current request and the caller principal. Every method returns {@code null}
 * (or an empty list) for what is absent, and never creates state such as a session.
 */
public interface RequestView {
    /** The address of the direct peer (the TCP connection). */
    String remoteAddress();

    /** Every value of the header, in the order received. */
    List<String> headers(String name);

    /** The first value of the header, or null. */
    default String header(String name) {
        List<String> all = headers(name);
        return all.isEmpty() ? null : all.get(0);
    }

    /** The raw (still URL-encoded) query string, or null. The body is never read. */
    String queryString();

    /** The value of the cookie, or null. */
    String cookie(String name);

    /** The authenticated principal's name, or null. */
    String userName();

    /** The id of an existing session, or null; never creates one. */
    String sessionId();

    /**
     * The path inside the application (servlet path plus path info, decoded), as rules' {@code paths} and
     * {@code costs} match it; null when the view has none (a call outside a request).
     */
    default String path() {
        return null;
    }

    /** A request attribute set by the application, as text (for {@code plan=attribute:<name>}), or null. */
    default String attribute(String name) {
        return null;
    }

    /**
     * Whether the authenticated user has the role (for {@code exempt=role:<role>}); false when anonymous or when the
     * view knows no roles.
     */
    default boolean isUserInRole(String role) {
        return false;
    }

    /**
     * Whether the application set the request attribute to {@code Boolean.TRUE} or the text {@code "true"} (for
     * {@code exempt=attribute:<name>}).
     */
    default boolean attributeIsTrue(String name) {
        return "true".equals(attribute(name));
    }
}
