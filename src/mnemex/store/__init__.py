"""mnemex.store"""
