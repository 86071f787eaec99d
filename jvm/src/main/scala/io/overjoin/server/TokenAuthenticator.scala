package io.overjoin.server

import java.nio.charset.StandardCharsets
import java.security.MessageDigest
import javax.security.sasl.AuthenticationException

import org.apache.hive.service.auth.PasswdAuthenticationProvider

/**
 * HiveServer2 `CUSTOM` authentication for `overjoin server --token-file`: any user name, and the
 * password must equal the server's token (compared in constant time). Hive instantiates this class
 * by name from a fresh HiveConf, so [[OverjoinServer]] names it in a JVM system property.
 */
class TokenAuthenticator extends PasswdAuthenticationProvider {
  override def Authenticate(user: String, password: String): Unit = {
    val expected = System.getProperty(TokenAuthenticator.TokenProperty)
    val ok = expected != null && password != null &&
      MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), password.getBytes(StandardCharsets.UTF_8))
    if (!ok) throw new AuthenticationException("overjoin server: wrong or missing token (give it as the password)")
  }
}

object TokenAuthenticator {
  private[server] val TokenProperty = "overjoin.server.token"
}
