package io.sluice.cdi;

import io.sluice.key.RequestView;

import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A call as key resolution sees it: the current HTTP request, looked up only when a rule's key needs it,
 * and the caller principal and roles. Confined to one call.
 */
final class CallView implements RequestView {
    private final Supplier<String> principal;
    private final Supplier<RequestView> http;
    private final Predicate<String> callerRoles;
    private RequestView request;
    private boolean looked;

    /** {@code callerRoles}: the caller's roles outside an HTTP request (Jakarta Security's, when present). */
    CallView(Supplier<String> principal, Supplier<RequestView> http, Predicate<String> callerRoles) {
        this.principal = principal;
        this.http = http;
        this.callerRoles = callerRoles;
    }

    private RequestView request() {
        if (!looked) {
            looked = true;
            request = http.get();
        }
        return request;
    }

    @Override
    public String remoteAddress() {
        RequestView r = request();
        return r == null ? null : r.remoteAddress();
    }

    @Override
    public List<String> headers(String name) {
        RequestView r = request();
        return r == null ? List.of() : r.headers(name);
    }

    @Override
    public String queryString() {
        RequestView r = request();
        return r == null ? null : r.queryString();
    }

    @Override
    public String cookie(String name) {
        RequestView r = request();
        return r == null ? null : r.cookie(name);
    }

    @Override
    public String userName() {
        RequestView r = request();
        String name = r == null ? null : r.userName();
        return name != null ? name : principal.get();
    }

    @Override
    public String sessionId() {
        RequestView r = request();
        return r == null ? null : r.sessionId();
    }

    @Override
    public String attribute(String name) {
        RequestView r = request();
        return r == null ? null : r.attribute(name);
    }

    /** The current HTTP request's roles; outside a request, the caller's ({@code SecurityContext}'s). */
    @Override
    public boolean isUserInRole(String role) {
        RequestView r = request();
        return r != null ? r.isUserInRole(role) : callerRoles.test(role);
    }

    @Override
    public boolean attributeIsTrue(String name) {
        RequestView r = request();
        return r != null && r.attributeIsTrue(name);
    }
}
