"""mnemex.server"""
