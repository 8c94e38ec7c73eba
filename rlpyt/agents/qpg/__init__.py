"""Q-function policy-gradient agents: DdpgAgent, Td3Agent, SacAgent (and SAC_V's SacAgent)."""
