// PeerCertificate from OpenSSL's X509 (see tls_peer_info.hpp).
//
// Ownership: free functions; any thread.

#include "tls/tls_peer_info.hpp"

#include <arpa/inet.h>
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <chrono>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "net/socket_address.hpp"
#include "sluice/headers.hpp"

namespace sluice {
namespace {

// curl 7.88's form over OpenSSL: X509_NAME_print_ex with "; " between the RDNs.
std::string one_line(const X509_NAME* name) {
  if (name == nullptr) return {};
  std::unique_ptr<BIO, decltype(&BIO_free)> out(BIO_new(BIO_s_mem()), BIO_free);
  if (!out || X509_NAME_print_ex(out.get(), name, 0, XN_FLAG_SEP_SPLUS_SPC) < 0) return {};
  char* bytes = nullptr;
  const long length = BIO_get_mem_data(out.get(), &bytes);
  return length > 0 ? std::string(bytes, static_cast<std::size_t>(length)) : std::string();
}

std::chrono::system_clock::time_point time_of(const ASN1_TIME* time) {
  std::tm parts{};
  if (time == nullptr || ASN1_TIME_to_tm(time, &parts) != 1) return {};
  return std::chrono::system_clock::from_time_t(timegm(&parts));
}

std::string ip_text(const ASN1_OCTET_STRING* address) {
  char text[INET6_ADDRSTRLEN] = {};
  const int length = ASN1_STRING_length(address);
  const int family = length == 4 ? AF_INET : length == 16 ? AF_INET6 : 0;
  if (family == 0 ||
      inet_ntop(family, ASN1_STRING_get0_data(address), text, sizeof text) == nullptr)
    return {};
  return text;
}

std::vector<std::string> alt_names(const X509* certificate) {
  std::vector<std::string> names;
  auto* general = static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(certificate, NID_subject_alt_name, nullptr, nullptr));
  if (general == nullptr) return names;
  for (int i = 0; i < sk_GENERAL_NAME_num(general); ++i) {
    const GENERAL_NAME* entry = sk_GENERAL_NAME_value(general, i);
    if (entry->type == GEN_DNS) {
      const auto* text = reinterpret_cast<const char*>(ASN1_STRING_get0_data(entry->d.dNSName));
      names.push_back("DNS:" + std::string(text, ASN1_STRING_length(entry->d.dNSName)));
    } else if (entry->type == GEN_IPADD) {
      if (std::string ip = ip_text(entry->d.iPAddress); !ip.empty()) {
        names.push_back("IP Address:" + ip);
      }
    }
  }
  GENERAL_NAMES_free(general);
  return names;
}

bool name_matches(std::string_view pattern, std::string_view host) {
  if (iequals(pattern, host)) return true;
  if (!pattern.starts_with("*.")) return false;
  const std::string_view suffix = pattern.substr(1);  // ".example.org"
  // At least two labels after the wildcard: "*.org" names no one host.
  if (suffix.find('.', 1) == std::string_view::npos) return false;
  const auto dot = host.find('.');
  return dot != std::string_view::npos && dot > 0 && iequals(host.substr(dot), suffix);
}

}  // namespace

std::optional<PeerCertificate> describe_certificate(const x509_st* certificate) {
  if (certificate == nullptr) return std::nullopt;
  PeerCertificate described;
  described.subject = one_line(X509_get_subject_name(certificate));
  described.issuer = one_line(X509_get_issuer_name(certificate));
  described.not_before = time_of(X509_get0_notBefore(certificate));
  described.not_after = time_of(X509_get0_notAfter(certificate));
  described.subject_alt_names = alt_names(certificate);
  return described;
}

std::optional<PeerCertificate> describe_certificate_der(std::span<const unsigned char> der) {
  const unsigned char* next = der.data();
  std::unique_ptr<X509, decltype(&X509_free)> certificate(
      d2i_X509(nullptr, &next, static_cast<long>(der.size())), X509_free);
  return describe_certificate(certificate.get());
}

std::string matched_certificate_name(const PeerCertificate& certificate, std::string_view host) {
  const bool ip = is_ip_literal(host);
  for (std::string_view name : certificate.subject_alt_names) {
    if (ip && name.starts_with("IP Address:")) {
      name.remove_prefix(11);
      if (name == host) return std::string(name);
    } else if (!ip && name.starts_with("DNS:")) {
      name.remove_prefix(4);
      if (name_matches(name, host)) return std::string(name);
    }
  }
  return {};
}

}  // namespace sluice
