package io.sluice.filter;

class TomcatHttpTest extends HttpContract {
    TomcatHttpTest() {
        super(Containers.Kind.TOMCAT);
    }
}
