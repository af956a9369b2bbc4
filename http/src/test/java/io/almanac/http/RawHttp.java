package io.almanac.http;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** One HTTP exchange over a plain socket, so that a test can send what a client library would not. */
final class RawHttp {

  private RawHttp() {}

  /**
   * Sends the bytes as they are and reads the answer until the server closes the connection (send
   * {@code Connection: close}).
   *
   * @param port the node's port on 127.0.0.1
   * @param request the request's bytes
   * @return the whole answer: status line, headers and body
   */
  static String exchange(int port, byte[] request) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      try {
        out.write(request);
        out.flush();
      } catch (java.io.IOException closedEarly) {
        // the server may answer and close before it read everything (a header too large): read its answer
      }
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      try {
        for (int n; (n = in.read(buf)) > 0; ) {
          all.write(buf, 0, n);
        }
      } catch (java.net.SocketException reset) {
        // a reset after the answer: what was read is the answer
      }
      return all.toString(StandardCharsets.UTF_8);
    }
  }
}
