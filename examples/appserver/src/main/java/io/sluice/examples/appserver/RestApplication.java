package io.sluice.examples.appserver;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** Jakarta REST under {@code /rest}; resources and the Sluice exception mapper are found by scanning. */
@ApplicationPath("/rest")
public class RestApplication extends Application {
}
