#pragma once
// ClientAccess: how the library's own parts built on the public Client (download())
// reach what the Client runs: its file pool and options. Not part of the API.
// Ownership: a static accessor; the ClientCore it returns belongs to the Client and
// lives as long as it.

namespace sluice {

class Client;
class ClientCore;

struct ClientAccess {
  static ClientCore& core(Client& client);
};

}  // namespace sluice
