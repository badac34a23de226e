package io.sluice.spring;

import io.sluice.ConfigException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a start-up that failed on the rules into Spring Boot's failure report: every problem, each naming the
 * property, its value and the expected form, and where to change them, instead of a stack of bean creation errors.
 */
class ConfigFailureAnalyzer extends AbstractFailureAnalyzer<ConfigException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ConfigException cause) {
        return new FailureAnalysis(cause.getMessage(),
                "Correct the sluice.* properties above (application.properties or .yaml, profiles, environment "
                        + "variables); docs/rules.md lists every property and its form.", cause);
    }
}
