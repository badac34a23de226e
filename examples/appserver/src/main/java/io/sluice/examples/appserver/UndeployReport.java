package io.sluice.examples.appserver;

import io.sluice.servlet.ApplicationSluice;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;

/**
 * Says on the console, when the application is undeployed, whether its Sluice engine was withdrawn (closed by
 * its owner, the filter or the CDI producer): the tests read it in every server's log.
 */
public class UndeployReport implements ServletContextListener {
    /** The console line's start; the tests look for it. */
    public static final String LINE = "sluice-example-appserver undeployed: engine withdrawn=";

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        boolean withdrawn = event.getServletContext().getAttribute(ApplicationSluice.CONTEXT_ATTRIBUTE) == null;
        System.out.println(LINE + withdrawn);
    }
}
