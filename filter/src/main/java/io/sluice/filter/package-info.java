/**
 * A portable Jakarta Servlet 5.0+ filter, {@link io.sluice.filter.SluiceFilter}, that applies the rules of a
 * rules file to the requests it sees and answers rejections with {@code 429}, {@code Retry-After}, rate-limit
 * headers and a problem body, or with the response of the application's own
 * {@link io.sluice.filter.RejectionHandler}. The only public types of this package.
 */
package io.sluice.filter;
