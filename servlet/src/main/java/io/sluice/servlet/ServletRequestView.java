package io.sluice.servlet;

import io.sluice.key.RequestView;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;

import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * An {@link HttpServletRequest} as key resolution sees it, shared by the filter and the CDI interceptor.
 * Never creates a session, never reads the body. Not thread-safe beyond what the request itself is.
 */
public final class ServletRequestView implements RequestView {
    private final HttpServletRequest request;

    public ServletRequestView(HttpServletRequest request) {
        this.request = request;
    }

    @Override
    public String remoteAddress() {
        return request.getRemoteAddr();
    }

    @Override
    public List<String> headers(String name) {
        Enumeration<String> values = request.getHeaders(name);
        return values == null ? List.of() : Collections.list(values);
    }

    @Override
    public String header(String name) {
        return request.getHeader(name);
    }

    @Override
    public String queryString() {
        return request.getQueryString();
    }

    @Override
    public String cookie(String name) {
        Cookie[] cookies = request.getCookies();
        if (cookies == null) return null;
        for (Cookie c : cookies) {
            if (c.getName().equals(name)) return c.getValue();
        }
        return null;
    }

    @Override
    public String userName() {
        Principal p = request.getUserPrincipal();
        return p == null ? null : p.getName();
    }

    @Override
    public String sessionId() {
        HttpSession s = request.getSession(false);
        return s == null ? null : s.getId();
    }

    @Override
    public String path() {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        return path.isEmpty() ? "/" : path;
    }

    @Override
    public String attribute(String name) {
        Object value = request.getAttribute(name);
        return value == null ? null : value.toString();
    }

    @Override
    public boolean isUserInRole(String role) {
        return request.getUserPrincipal() != null && request.isUserInRole(role);
    }

    @Override
    public boolean attributeIsTrue(String name) {
        Object value = request.getAttribute(name);
        return Boolean.TRUE.equals(value) || "true".equals(value);
    }
}
