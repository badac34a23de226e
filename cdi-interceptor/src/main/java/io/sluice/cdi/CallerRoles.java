package io.sluice.cdi;

import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.security.enterprise.SecurityContext;

/**
 * The caller's roles from Jakarta Security's {@link SecurityContext}, when the application has one: for
 * {@code exempt=role:<role>} outside an HTTP request. Loaded only when the Jakarta Security API is present.
 */
final class CallerRoles {
    private CallerRoles() {
    }

    /** Whether the caller has the role; false without a {@code SecurityContext} bean or a caller. */
    static boolean inRole(BeanManager bm, String role) {
        try {
            Bean<?> bean = bm.resolve(bm.getBeans(SecurityContext.class));
            if (bean == null) return false;
            SecurityContext security = (SecurityContext) bm.getReference(bean, SecurityContext.class, bm.createCreationalContext(bean));
            return security.getCallerPrincipal() != null && security.isCallerInRole(role);
        } catch (RuntimeException e) {
            return false; // no security services, or no caller
        }
    }
}
