package io.sluice.filter;

import jakarta.servlet.DispatcherType;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.servlet.security.ConstraintMapping;
import org.eclipse.jetty.ee10.servlet.security.ConstraintSecurityHandler;
import org.eclipse.jetty.security.Constraint;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.security.authentication.BasicAuthenticator;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.security.Credential;

import java.util.EnumSet;
import java.util.Map;

/** The admin servlet on embedded Jetty 12 (ee10): a constraint for the role, BASIC, a {@code HashLoginService}. */
class JettyAdminServletTest extends AdminServletContract {
    private Server server;

    @Override
    int start(Map<String, String> filterParams) throws Exception {
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);

        UserStore users = new UserStore();
        users.addUser("ops", Credential.getCredential("ops-secret"), new String[]{ROLE});
        users.addUser("dev", Credential.getCredential("dev-secret"), new String[]{"developer"});
        HashLoginService realm = new HashLoginService("sluice-admin");
        realm.setUserStore(users);
        ConstraintMapping mapping = new ConstraintMapping();
        mapping.setPathSpec(ADMIN_PATH);
        mapping.setConstraint(Constraint.from(ROLE));
        ConstraintSecurityHandler security = new ConstraintSecurityHandler();
        security.addConstraintMapping(mapping);
        security.setAuthenticator(new BasicAuthenticator());
        security.setLoginService(realm);

        ServletContextHandler context = new ServletContextHandler("/", ServletContextHandler.SECURITY);
        context.setSecurityHandler(security);
        FilterHolder filter = new FilterHolder(new SluiceFilter());
        filter.setInitParameters(filterParams);
        context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new Api()), "/api/*");
        context.addServlet(new ServletHolder(new SluiceAdminServlet()), ADMIN_PATH);
        server.setHandler(context);
        server.start();
        return connector.getLocalPort();
    }

    @Override
    void stop() throws Exception {
        server.stop();
    }
}
