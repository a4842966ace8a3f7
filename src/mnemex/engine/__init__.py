"""mnemex.engine"""
