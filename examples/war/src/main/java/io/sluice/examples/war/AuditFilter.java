package io.sluice.examples.war;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;

import java.io.IOException;

/**
 * The application's own filter after Sluice, mapped for REQUEST dispatches only (the default), as most audit,
 * logging and transaction filters are: it must see every request Sluice admits, once, as a REQUEST.
 */
public class AuditFilter implements Filter {
    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        Workload.of(((HttpServletRequest) req).getServletContext()).audit(req.getDispatcherType());
        chain.doFilter(req, res);
    }
}
