package io.sluice.examples.war;

/** The example WAR running in some container; closing it stops the container (and checks how it stopped). */
interface Deployed extends AutoCloseable {
    /** Such as {@code http://127.0.0.1:40123/example}: the application's context root, without a trailing slash. */
    String baseUrl();

    /** What the container wrote, for the report of a failed test. */
    String logs();

    @Override
    void close();
}
