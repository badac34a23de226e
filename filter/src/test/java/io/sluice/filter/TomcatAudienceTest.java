package io.sluice.filter;

class TomcatAudienceTest extends AudienceHttpContract {
    TomcatAudienceTest() {
        super(Containers.Kind.TOMCAT);
    }
}
