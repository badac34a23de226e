package io.sluice.filter;

import org.apache.catalina.Context;
import org.apache.catalina.authenticator.BasicAuthenticator;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.apache.tomcat.util.descriptor.web.LoginConfig;
import org.apache.tomcat.util.descriptor.web.SecurityCollection;
import org.apache.tomcat.util.descriptor.web.SecurityConstraint;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The admin servlet on embedded Tomcat 11: what a web.xml's security-constraint and BASIC login-config set up. */
class TomcatAdminServletTest extends AdminServletContract {
    private Tomcat tomcat;

    @Override
    int start(Map<String, String> filterParams) throws Exception {
        Path base = Files.createTempDirectory("sluice-admin");
        tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        tomcat.addUser("ops", "ops-secret");
        tomcat.addRole("ops", ROLE);
        tomcat.addUser("dev", "dev-secret");
        tomcat.addRole("dev", "developer");
        Context context = tomcat.addContext("", base.toString());

        FilterDef def = new FilterDef();
        def.setFilterName("sluice");
        def.setFilter(new SluiceFilter());
        filterParams.forEach(def::addInitParameter);
        context.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName("sluice");
        map.addURLPattern("/*");
        context.addFilterMap(map);
        Tomcat.addServlet(context, "api", new Api());
        context.addServletMappingDecoded("/api/*", "api");
        Tomcat.addServlet(context, "admin", new SluiceAdminServlet());
        context.addServletMappingDecoded(ADMIN_PATH, "admin");

        SecurityConstraint constraint = new SecurityConstraint();
        constraint.addAuthRole(ROLE);
        SecurityCollection collection = new SecurityCollection();
        collection.addPattern(ADMIN_PATH);
        constraint.addCollection(collection);
        context.addConstraint(constraint);
        context.addSecurityRole(ROLE);
        LoginConfig login = new LoginConfig();
        login.setAuthMethod("BASIC");
        login.setRealmName("sluice-admin");
        context.setLoginConfig(login);
        context.getPipeline().addValve(new BasicAuthenticator());

        tomcat.start();
        return connector.getLocalPort();
    }

    @Override
    void stop() throws Exception {
        tomcat.stop();
        tomcat.destroy();
    }
}
